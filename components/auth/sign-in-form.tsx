"use client";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { parseThrottleErrorCode, tooManyAttemptsMessage } from "@/lib/security/auth-throttle";

const ERRORS: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  OAuthSignin: "Could not start the sign-in with that provider.",
  OAuthCallback: "The provider refused the sign-in.",
  AccessDenied: "You do not have access.",
};

/** The message for a next-auth error code; a throttled attempt says how long to wait. */
function errorMessage(code: string | undefined, fallback: string): string {
  const wait = parseThrottleErrorCode(code);
  if (wait !== null) return tooManyAttemptsMessage(wait);
  return ERRORS[code ?? ""] ?? fallback;
}

export function SignInForm({
  callbackUrl,
  githubEnabled,
  canSignUp,
  error,
}: {
  callbackUrl: string;
  githubEnabled: boolean;
  canSignUp: boolean;
  error?: string;
}) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState(error ? errorMessage(error, error) : "");

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setMessage("");
    const res = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    setPending(false);
    if (!res || res.error) {
      setMessage(errorMessage(res?.error ?? undefined, "Wrong email or password."));
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  return (
    <div className="card auth-card">
      <div className="card-body stack">
        <div>
          <h1>Sign in to Sluice</h1>
          <p className="muted">Durable workflows with approvals and reviewed changes.</p>
        </div>
        {message ? (
          <div className="form-error" role="alert">
            {message}
          </div>
        ) : null}
        <form className="form" onSubmit={onSubmit} noValidate>
          <Field label="Email" name="email" type="email" autoComplete="email" required autoFocus />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
          <button className="btn btn-primary btn-block" type="submit" disabled={pending}>
            {pending ? <span className="spinner" aria-hidden /> : null} Sign in
          </button>
        </form>
        {githubEnabled ? (
          <>
            <div className="divider">or</div>
            <button
              className="btn btn-block"
              type="button"
              onClick={() => signIn("github", { callbackUrl })}
            >
              Continue with GitHub
            </button>
          </>
        ) : null}
        <p className="muted small">
          {canSignUp ? (
            <>
              New here? <Link href="/sign-up">Create an account</Link>
            </>
          ) : (
            "Accounts are created by invitation: ask a workspace admin for a link."
          )}
        </p>
      </div>
    </div>
  );
}

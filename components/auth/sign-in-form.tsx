"use client";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { TWO_FACTOR_INVALID, TWO_FACTOR_REQUIRED } from "@/lib/schemas/two-factor";
import { parseThrottleErrorCode, tooManyAttemptsMessage } from "@/lib/security/auth-throttle";
import { TwoFactorSignInStep } from "./two-factor-sign-in-step";
import auth from "@/components/auth/auth.module.css";

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
  // Set once the password was right and the account asks for its second factor.
  const [twoFactor, setTwoFactor] = useState<{ email: string; password: string } | null>(null);

  async function submit(credentials: { email: string; password: string; code?: string }) {
    setPending(true);
    setMessage("");
    const res = await signIn("credentials", { ...credentials, redirect: false });
    setPending(false);
    if (res?.error === TWO_FACTOR_REQUIRED || res?.error === TWO_FACTOR_INVALID) {
      setTwoFactor({ email: credentials.email, password: credentials.password });
      if (res.error === TWO_FACTOR_INVALID)
        setMessage("That code is not valid, or was already used. Try the next one.");
      return;
    }
    if (!res || res.error) {
      setTwoFactor(null);
      setMessage(errorMessage(res?.error ?? undefined, "Wrong email or password."));
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    void submit({
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
    });
  }

  if (twoFactor)
    return (
      <TwoFactorSignInStep
        pending={pending}
        message={message}
        onSubmit={(code) => submit({ ...twoFactor, code })}
        onCancel={() => {
          setTwoFactor(null);
          setMessage("");
        }}
      />
    );

  return (
    <div className={`card ${auth.card}`}>
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
            <div className={auth.divider}>or</div>
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

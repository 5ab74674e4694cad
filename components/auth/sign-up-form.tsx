"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { SignUpInput } from "@/lib/schemas/auth";
import { useTRPC } from "@/lib/trpc/client";
import auth from "@/components/auth/auth.module.css";

type Errors = Partial<Record<"name" | "email" | "password" | "workspaceName", string>>;

/**
 * Account creation: the first user (who also names the workspace), open sign-up, or an invited
 * person (email fixed by the invitation). Validated with the same schema the server uses.
 */
export function SignUpForm({
  mode,
  invitation,
}: {
  mode: "first" | "open" | "invite";
  invitation?: { token: string; email: string; workspaceName: string };
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState("");
  const signUp = useMutation(trpc.auth.signUp.mutationOptions());

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const input = {
      name: String(f.get("name") ?? ""),
      email: invitation?.email ?? String(f.get("email") ?? ""),
      password: String(f.get("password") ?? ""),
      workspaceName:
        mode === "first" ? String(f.get("workspaceName") ?? "") || undefined : undefined,
      invitationToken: invitation?.token,
    };
    const parsed = SignUpInput.safeParse(input);
    if (!parsed.success) {
      const next: Errors = {};
      for (const i of parsed.error.issues) next[i.path[0] as keyof Errors] ??= i.message;
      setErrors(next);
      return;
    }
    setErrors({});
    setFormError("");
    try {
      await signUp.mutateAsync(parsed.data);
    } catch (err) {
      setFormError((err as Error).message);
      return;
    }
    const res = await signIn("credentials", {
      email: parsed.data.email,
      password: parsed.data.password,
      redirect: false,
    });
    if (!res || res.error) {
      setFormError("Your account was created, but signing in failed. Try signing in.");
      return;
    }
    router.replace("/workflows");
    router.refresh();
  }

  return (
    <div className={`card ${auth.card}`}>
      <div className="card-body stack">
        <div>
          <h1>
            {invitation
              ? `Join ${invitation.workspaceName}`
              : mode === "first"
                ? "Set up Sluice"
                : "Create your account"}
          </h1>
          <p className="muted">
            {mode === "first" && !invitation
              ? "You are the first user: you will own a new workspace."
              : invitation
                ? `Create an account for ${invitation.email} to accept the invitation.`
                : "You will get a workspace of your own."}
          </p>
        </div>
        {formError ? (
          <div className="form-error" role="alert">
            {formError}
          </div>
        ) : null}
        <form className="form" onSubmit={onSubmit} noValidate>
          <Field label="Your name" name="name" autoComplete="name" error={errors.name} autoFocus />
          {invitation ? (
            <Field label="Email" name="email" type="email" value={invitation.email} readOnly />
          ) : (
            <Field
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              error={errors.email}
            />
          )}
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete="new-password"
            hint="At least 10 characters."
            error={errors.password}
          />
          {mode === "first" && !invitation ? (
            <Field
              label="Workspace name"
              name="workspaceName"
              placeholder="Acme Ops"
              error={errors.workspaceName}
            />
          ) : null}
          <button className="btn btn-primary btn-block" type="submit" disabled={signUp.isPending}>
            {signUp.isPending ? <span className="spinner" aria-hidden /> : null} Create account
          </button>
        </form>
        {mode !== "first" ? (
          <p className="muted small">
            Already have an account? <Link href="/sign-in">Sign in</Link>
          </p>
        ) : null}
      </div>
    </div>
  );
}

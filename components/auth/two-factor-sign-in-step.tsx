"use client";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import auth from "@/components/auth/auth.module.css";

/** The second sign-in step: a code from the authenticator app, or one recovery code. */
export function TwoFactorSignInStep({
  pending,
  message,
  onSubmit,
  onCancel,
}: {
  pending: boolean;
  message: string;
  onSubmit: (code: string) => void;
  onCancel: () => void;
}) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState("");
  return (
    <div className={`card ${auth.card}`}>
      <div className="card-body stack">
        <div>
          <h1>Two-factor sign-in</h1>
          <p className="muted">
            {useRecovery
              ? "Enter one of your recovery codes. Each code works once."
              : "Enter the 6-digit code from your authenticator app."}
          </p>
        </div>
        {message ? (
          <div className="form-error" role="alert">
            {message}
          </div>
        ) : null}
        <form
          className="form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit(code.trim());
          }}
        >
          {useRecovery ? (
            <Field
              key="recovery"
              label="Recovery code"
              name="code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              placeholder="xxxxx-xxxxx"
              required
              autoFocus
            />
          ) : (
            <Field
              key="totp"
              label="Authentication code"
              name="code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              autoComplete="one-time-code"
              inputMode="numeric"
              pattern="[0-9 ]*"
              maxLength={7}
              required
              autoFocus
            />
          )}
          <button
            className="btn btn-primary btn-block"
            type="submit"
            disabled={pending || code.trim() === ""}
          >
            {pending ? <span className="spinner" aria-hidden /> : null} Verify
          </button>
        </form>
        <button
          type="button"
          className="btn btn-link"
          onClick={() => {
            setUseRecovery((v) => !v);
            setCode("");
          }}
        >
          {useRecovery ? "Use your authenticator app" : "Use a recovery code"}
        </button>
        <button type="button" className="btn btn-link" onClick={onCancel}>
          Back to email and password
        </button>
      </div>
    </div>
  );
}

"use client";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import styles from "./two-factor.module.css";

/** One code field and a button: confirms set-up, turning off and regenerating codes. */
export function TwoFactorCodeForm({
  label = "Authentication code",
  hint,
  submitLabel,
  pending,
  error,
  danger = false,
  allowRecovery = false,
  onSubmit,
  onCancel,
}: {
  label?: string;
  hint?: string;
  submitLabel: string;
  pending: boolean;
  error?: string;
  danger?: boolean;
  /** Accepts a recovery code too (then the field is plain text, not numeric). */
  allowRecovery?: boolean;
  onSubmit: (code: string) => void;
  onCancel?: () => void;
}) {
  const [code, setCode] = useState("");
  return (
    <form
      className={`form ${styles.codeForm}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(code.trim());
      }}
    >
      <Field
        label={label}
        hint={hint}
        error={error}
        name="code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        autoComplete="one-time-code"
        inputMode={allowRecovery ? "text" : "numeric"}
        spellCheck={false}
        required
        autoFocus
      />
      <div className={styles.actions}>
        <button
          type="submit"
          className={`btn ${danger ? "btn-danger" : "btn-primary"}`}
          disabled={pending || code.trim() === ""}
        >
          {pending ? <span className="spinner" aria-hidden /> : null} {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

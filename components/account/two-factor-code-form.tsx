"use client";
import { FormText, useIssueForm } from "@/components/forms/form";
import { TwoFactorCodeInput } from "@/lib/schemas/two-factor";
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
  /** The server's refusal (e.g. a wrong code), shown on the field. */
  error?: string;
  danger?: boolean;
  /** Accepts a recovery code too (then the field is plain text, not numeric). */
  allowRecovery?: boolean;
  onSubmit: (code: string) => void;
  onCancel?: () => void;
}) {
  const form = useIssueForm(TwoFactorCodeInput, { defaultValues: { code: "" } });
  const empty = form.watch("code").trim() === "";
  return (
    <form
      className={`form ${styles.codeForm}`}
      noValidate
      onSubmit={form.handleSubmit(({ code }) => onSubmit(code))}
    >
      <FormText
        control={form.control}
        name="code"
        label={label}
        hint={hint}
        fallbackError={error}
        autoComplete="one-time-code"
        inputMode={allowRecovery ? "text" : "numeric"}
        spellCheck={false}
        autoFocus
      />
      <div className={styles.actions}>
        <button
          type="submit"
          className={`btn ${danger ? "btn-danger" : "btn-primary"}`}
          disabled={pending || empty}
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

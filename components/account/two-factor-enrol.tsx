"use client";
import { useMutation } from "@tanstack/react-query";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useTRPC } from "@/lib/trpc/client";
import { TwoFactorCodeForm } from "./two-factor-code-form";
import { TwoFactorRecoveryCodes } from "./two-factor-recovery-codes";
import styles from "./two-factor.module.css";

/**
 * Enrolment: a new secret as a QR code and a manual key, a confirmation code, then the recovery
 * codes (shown once). `onDone` runs after the user has seen the codes.
 */
export function TwoFactorEnrol({
  onEnabled,
  onDone,
  onCancel,
}: {
  onEnabled?: () => void;
  onDone: () => void;
  onCancel?: () => void;
}) {
  const trpc = useTRPC();
  const begin = useMutation(trpc.twoFactor.beginEnrolment.mutationOptions());
  const confirm = useMutation(
    trpc.twoFactor.confirmEnrolment.mutationOptions({ onSuccess: () => onEnabled?.() }),
  );

  if (confirm.data)
    return <TwoFactorRecoveryCodes codes={confirm.data.recoveryCodes} onDone={onDone} />;
  if (begin.isPending) return <LoadingRows rows={3} label="Preparing set-up" />;
  if (begin.error)
    return <ErrorState message={begin.error.message} onRetry={() => begin.mutate()} />;
  // Each start stores a new pending secret, so it waits for a click rather than a mount.
  if (!begin.data)
    return (
      <div>
        <button type="button" className="btn btn-primary" onClick={() => begin.mutate()}>
          Set up two-factor
        </button>
      </div>
    );
  return (
    <div className="stack">
      <ol className="stack">
        <li>
          Scan this QR code with an authenticator app (1Password, Google Authenticator, Authy, …).
          <div className={styles.setup}>
            {/* eslint-disable-next-line @next/next/no-img-element -- a data URL, nothing to optimise */}
            <img
              className={styles.qr}
              src={begin.data.qrCodeDataUrl}
              alt="QR code for your authenticator app; the same key is written out beside it"
            />
            <div className={`stack ${styles.keyBox}`}>
              <Field
                label="Setup key"
                hint="Or type this key into the app by hand."
                value={begin.data.manualKey}
                readOnly
                className={styles.key}
                onFocus={(e) => e.currentTarget.select()}
              />
              <div>
                <CopyButton value={begin.data.manualKey.replace(/\s+/g, "")} label="Copy key" />
              </div>
            </div>
          </div>
        </li>
        <li>
          Enter the 6-digit code the app shows to finish.
          <TwoFactorCodeForm
            submitLabel="Turn on two-factor"
            pending={confirm.isPending}
            error={confirm.error?.message}
            onSubmit={(code) => confirm.mutate({ code })}
            onCancel={onCancel}
          />
        </li>
      </ol>
    </div>
  );
}

"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { LocalTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { TwoFactorCodeForm } from "./two-factor-code-form";
import { TwoFactorEnrol } from "./two-factor-enrol";
import { TwoFactorRecoveryCodes } from "./two-factor-recovery-codes";
import styles from "./two-factor.module.css";

type Mode = "idle" | "enrol" | "disable" | "regenerate";

/** The account page's two-factor card: set up, regenerate recovery codes, turn off. */
export function TwoFactorCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const status = useQuery(trpc.twoFactor.status.queryOptions());
  const [mode, setMode] = useState<Mode>("idle");
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.twoFactor.status.queryKey() });
  const disable = useMutation(
    trpc.twoFactor.disable.mutationOptions({
      onSuccess: () => {
        setMode("idle");
        toast("Two-factor is off");
        void refresh();
      },
    }),
  );
  const regenerate = useMutation(
    trpc.twoFactor.regenerateRecoveryCodes.mutationOptions({ onSuccess: () => void refresh() }),
  );

  return (
    <section className="card" aria-labelledby="two-factor-h">
      <div className="card-head">
        <h2 id="two-factor-h">Two-factor sign-in</h2>
        {status.data?.hasPassword ? (
          <span className={`badge ${status.data.enabled ? "badge-ok" : ""}`}>
            {status.data.enabled ? "On" : "Off"}
          </span>
        ) : null}
      </div>
      {status.isPending ? (
        <LoadingRows rows={2} />
      ) : status.error ? (
        <ErrorState message={status.error.message} onRetry={() => status.refetch()} />
      ) : !status.data.hasPassword ? (
        <div className="card-body">
          <p className="muted">
            You sign in with GitHub, which runs its own two-factor check. Two-factor here protects
            password sign-in.
          </p>
        </div>
      ) : regenerate.data && mode === "regenerate" ? (
        <div className="card-body">
          <TwoFactorRecoveryCodes
            codes={regenerate.data.recoveryCodes}
            onDone={() => {
              regenerate.reset();
              setMode("idle");
            }}
          />
        </div>
      ) : !status.data.enabled || mode === "enrol" ? (
        <div className="card-body stack">
          <p className="muted">
            After your password, sign-in asks for a code from an authenticator app on your phone.
            {status.data.requiredBy.length > 0
              ? ` Required by ${status.data.requiredBy.map((w) => w.name).join(", ")}.`
              : ""}
          </p>
          <TwoFactorEnrol
            onEnabled={() => {
              // Stay on the recovery codes the set-up shows next, although status now says on.
              setMode("enrol");
              void refresh();
            }}
            onDone={() => {
              setMode("idle");
              toast("Two-factor is on");
            }}
          />
        </div>
      ) : (
        <div className="card-body stack">
          <p>
            On since <LocalTime date={status.data.enabledAt!} />.{" "}
            <span className="muted">
              {status.data.recoveryCodesLeft} of 10 recovery codes unused.
            </span>
          </p>
          {mode === "regenerate" ? (
            <TwoFactorCodeForm
              hint="Old recovery codes stop working at once."
              submitLabel="Make new recovery codes"
              pending={regenerate.isPending}
              error={regenerate.error?.message}
              onSubmit={(code) => regenerate.mutate({ code })}
              onCancel={() => {
                regenerate.reset();
                setMode("idle");
              }}
            />
          ) : mode === "disable" ? (
            <TwoFactorCodeForm
              label="Authentication or recovery code"
              hint="A fresh code proves the authenticator is yours."
              submitLabel="Turn off two-factor"
              danger
              allowRecovery
              pending={disable.isPending}
              error={disable.error?.message}
              onSubmit={(code) => disable.mutate({ code })}
              onCancel={() => {
                disable.reset();
                setMode("idle");
              }}
            />
          ) : (
            <div className={styles.actions}>
              <button type="button" className="btn" onClick={() => setMode("regenerate")}>
                New recovery codes
              </button>
              {status.data.requiredBy.length === 0 ? (
                <button type="button" className="btn btn-danger" onClick={() => setMode("disable")}>
                  Turn off
                </button>
              ) : (
                <span className="muted small">
                  Required by {status.data.requiredBy.map((w) => w.name).join(", ")}.
                </span>
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

"use client";
import { signOut, useSession } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { TwoFactorEnrol } from "./two-factor-enrol";
import auth from "@/components/auth/auth.module.css";

/** The required enrolment after sign-in: explains why, then the same set-up as the account page. */
export function TwoFactorEnrolGate({
  requiredBy,
  alreadyEnabled,
}: {
  requiredBy: string[];
  alreadyEnabled: boolean;
}) {
  const router = useRouter();
  const { update } = useSession();
  const [leaving, setLeaving] = useState(false);
  async function proceed() {
    setLeaving(true);
    // Re-evaluates the session's enrolment flag (server/auth/options.ts, jwt "update").
    await update({});
    router.replace("/workflows");
    router.refresh();
  }
  return (
    <div className={`card ${auth.card}`}>
      <div className="card-body stack">
        <div>
          <h1>Set up two-factor sign-in</h1>
          <p className="muted">
            {requiredBy.length > 0
              ? `${requiredBy.join(", ")} requires two-factor sign-in for its members. `
              : ""}
            Set up an authenticator app to continue; until then the rest of Sluice stays locked.
          </p>
        </div>
        {alreadyEnabled ? (
          <button type="button" className="btn btn-primary" onClick={proceed} disabled={leaving}>
            Continue
          </button>
        ) : (
          <TwoFactorEnrol onDone={proceed} />
        )}
        <button type="button" className="btn" onClick={() => signOut({ callbackUrl: "/sign-in" })}>
          Sign out
        </button>
      </div>
    </div>
  );
}

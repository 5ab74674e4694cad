import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { TwoFactorEnrolGate } from "@/components/account/two-factor-enrol-gate";
import { getSession, requirePageContext } from "@/server/page-context";
import { getTwoFactorStatus } from "@/server/services/two-factor/get-two-factor-status";
import auth from "@/components/auth/auth.module.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Set up two-factor" };

/**
 * Where the dashboard sends a password sign-in that a workspace requires two-factor for. Outside
 * the dashboard layout, which redirects here until the enrolment is done.
 */
export default async function TwoFactorEnrolPage() {
  const ctx = await requirePageContext("/account/two-factor");
  const session = await getSession();
  if (!session?.twoFactorEnrolRequired) redirect("/account");
  const status = await getTwoFactorStatus({ ctx });
  return (
    <main id="main" className={auth.wrap}>
      <TwoFactorEnrolGate
        requiredBy={status.requiredBy.map((w) => w.name)}
        alreadyEnabled={status.enabled}
      />
    </main>
  );
}

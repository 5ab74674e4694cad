import type { Metadata } from "next";
import { ChangePasswordCard } from "@/components/account/change-password-card";
import { SessionsCard } from "@/components/account/sessions-card";
import { PageHead } from "@/components/shell/page-head";
import { requirePageContext } from "@/server/page-context";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  await requirePageContext("/account");
  return (
    <div className="page">
      <PageHead title="Account" description="How you sign in to Sluice." />
      <div className="stack">
        <SessionsCard />
        <ChangePasswordCard />
      </div>
    </div>
  );
}

import type { Metadata } from "next";
import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";
import { PageHead } from "@/components/shell/page-head";

export const metadata: Metadata = { title: "Approvals" };

/** `?open=<approvalId>` opens that decision directly (the link approvals share). */
export default async function ApprovalsPage({
  searchParams,
}: {
  searchParams: Promise<{ open?: string | string[] }>;
}) {
  const { open } = await searchParams;
  return (
    <div className="page">
      <PageHead title="Approvals" description="Runs waiting for a human decision." />
      <ApprovalsInbox openId={typeof open === "string" && open ? open : undefined} />
    </div>
  );
}

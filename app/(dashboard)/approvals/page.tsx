import type { Metadata } from "next";
import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";
import { PageHead } from "@/components/shell/page-head";

export const metadata: Metadata = { title: "Approvals" };

export default function ApprovalsPage() {
  return (
    <div className="page">
      <PageHead title="Approvals" description="Runs waiting for a human decision." />
      <ApprovalsInbox />
    </div>
  );
}

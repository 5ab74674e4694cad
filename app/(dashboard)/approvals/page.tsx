import type { Metadata } from "next";
import { PageHead } from "@/components/shell/page-head";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Approvals" };

export default function ApprovalsPage() {
  return (
    <div className="page">
      <PageHead title="Approvals" description="Runs waiting for a human decision." />
      <div className="card">
        <EmptyState title="Nothing waiting for you">
          Approval requests you can decide will appear here.
        </EmptyState>
      </div>
    </div>
  );
}

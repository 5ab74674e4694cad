import type { Metadata } from "next";
import { PageHead } from "@/components/shell/page-head";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Workflows" };

export default function WorkflowsPage() {
  return (
    <div className="page">
      <PageHead
        title="Workflows"
        description="Multi-step automations with approvals, retries and version history."
      />
      <div className="card">
        <EmptyState title="No workflows yet">Workflows you create will be listed here.</EmptyState>
      </div>
    </div>
  );
}

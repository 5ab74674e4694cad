import type { Metadata } from "next";
import Link from "next/link";
import { PageHead } from "@/components/shell/page-head";
import { WorkflowList } from "@/components/workflows/workflow-list";
import { requirePageContext } from "@/server/page-context";
import { hasRole } from "@/lib/schemas/roles";

export const metadata: Metadata = { title: "Workflows" };

export default async function WorkflowsPage() {
  const ctx = await requirePageContext("/workflows");
  const canEdit = ctx.workspace ? hasRole(ctx.workspace.role, "editor") : false;
  return (
    <div className="page">
      <PageHead
        title="Workflows"
        description="Multi-step automations with approvals, retries and version history."
        actions={
          canEdit ? (
            <Link className="btn btn-primary" href="/workflows/new">
              New workflow
            </Link>
          ) : null
        }
      />
      <WorkflowList />
    </div>
  );
}

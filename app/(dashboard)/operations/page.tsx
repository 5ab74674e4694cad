import type { Metadata } from "next";
import { OperationsDashboard } from "@/components/operations/operations-dashboard";
import { PageHead } from "@/components/shell/page-head";
import { hasRole } from "@/lib/schemas/roles";
import { requirePageContext } from "@/server/page-context";

export const metadata: Metadata = { title: "Operations" };

export default async function OperationsPage() {
  const ctx = await requirePageContext("/operations");
  const admin = ctx.workspace ? hasRole(ctx.workspace.role, "admin") : false;
  return (
    <div className="page">
      <PageHead
        title="Operations"
        description={
          <>
            Run rates, failures, durations, the queue, open gates and webhook rejects of this
            workspace. Probes, metrics and backups: <code>docs/operations.md</code>.
          </>
        }
      />
      {admin ? (
        <OperationsDashboard />
      ) : (
        // The data procedure refuses non-admins too; this says so instead of an error.
        <div className="card card-body" role="alert">
          Only workspace admins and owners can see the operations page.
        </div>
      )}
    </div>
  );
}

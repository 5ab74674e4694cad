import type { ReactNode } from "react";
import { WorkflowHeader } from "@/components/workflows/workflow-header";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export default async function WorkflowLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  // Awaited: the server renders the same data the client hydrates with (no mismatch).
  await prefetch(trpc.workflow.get.queryOptions({ workflowId: id }));
  return (
    <HydrateClient>
      <div className="page">
        <WorkflowHeader workflowId={id} />
        {children}
      </div>
    </HydrateClient>
  );
}

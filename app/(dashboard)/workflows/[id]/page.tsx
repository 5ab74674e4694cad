import { WorkflowOverview } from "@/components/workflows/workflow-overview";

export default async function WorkflowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <WorkflowOverview workflowId={id} />;
}

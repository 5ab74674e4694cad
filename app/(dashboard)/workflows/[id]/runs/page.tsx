import { Suspense } from "react";
import { RunsList } from "@/components/runs/runs-list";
import { LoadingRows } from "@/components/ui/states";

export default async function WorkflowRunsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<LoadingRows rows={5} label="Loading runs" />}>
      <RunsList workflowId={id} />
    </Suspense>
  );
}

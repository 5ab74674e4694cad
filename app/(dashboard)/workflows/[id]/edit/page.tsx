import type { Metadata } from "next";
import { WorkflowEditor } from "@/components/workflows/workflow-editor";

export const metadata: Metadata = { title: "Edit workflow" };

export default async function EditPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ view?: string }>;
}) {
  const { id } = await params;
  const { view } = await searchParams;
  return <WorkflowEditor workflowId={id} view={view === "graph" ? "graph" : "json"} />;
}

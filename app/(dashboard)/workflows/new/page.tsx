import type { Metadata } from "next";
import { PageHead } from "@/components/shell/page-head";
import { NewWorkflowForm } from "@/components/workflows/new-workflow-form";

export const metadata: Metadata = { title: "New workflow" };

export default function NewWorkflowPage() {
  return (
    <div className="page">
      <PageHead title="New workflow" description="Start from a template or import a definition." />
      <NewWorkflowForm />
    </div>
  );
}

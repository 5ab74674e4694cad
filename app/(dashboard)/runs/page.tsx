import type { Metadata } from "next";
import { PageHead } from "@/components/shell/page-head";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Runs" };

export default function RunsPage() {
  return (
    <div className="page">
      <PageHead title="Runs" description="Every execution of every workflow, live." />
      <div className="card">
        <EmptyState title="No runs yet">Runs appear here as soon as a workflow starts.</EmptyState>
      </div>
    </div>
  );
}

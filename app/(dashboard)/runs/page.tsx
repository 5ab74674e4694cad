import type { Metadata } from "next";
import { Suspense } from "react";
import { RunsList } from "@/components/runs/runs-list";
import { PageHead } from "@/components/shell/page-head";
import { LoadingRows } from "@/components/ui/states";

export const metadata: Metadata = { title: "Runs" };

export default function RunsPage() {
  return (
    <div className="page">
      <PageHead title="Runs" description="Every execution of every workflow, live." />
      <Suspense fallback={<LoadingRows rows={5} label="Loading runs" />}>
        <RunsList />
      </Suspense>
    </div>
  );
}

import type { Metadata } from "next";
import { RunView } from "@/components/runs/run-view";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="page">
      <RunView runId={id} />
    </div>
  );
}

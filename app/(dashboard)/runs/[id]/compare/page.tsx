import type { Metadata } from "next";
import { RunCompare } from "@/components/runs/run-compare";

export const metadata: Metadata = { title: "Compare runs" };

/** `/runs/<id>/compare?with=<other>`: the run (B) against another (A); no `with`: the previous run. */
export default async function RunComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ with?: string | string[] }>;
}) {
  const { id } = await params;
  const w = (await searchParams).with;
  return (
    <div className="page">
      <RunCompare runId={id} withRunId={typeof w === "string" && w ? w : null} />
    </div>
  );
}

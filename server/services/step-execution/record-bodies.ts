import "server-only";
import { recordSkips, type SkipRecord } from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";

/** Durable-step body: records skipped and never-started steps. */
export async function recordSkipsBody(a: {
  runId: string;
  workspaceId: string;
  items: (Omit<SkipRecord, "detail"> & { detail?: string })[];
}): Promise<{ recorded: number }> {
  const { db } = await stepRuntime();
  await recordSkips(db, { runId: a.runId, workspaceId: a.workspaceId }, a.items, runtimeNow());
  return { recorded: a.items.length };
}

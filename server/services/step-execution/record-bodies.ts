import "server-only";
import { recordSkips, type SkipRecord } from "@/server/services/run-state/step-records";
import { recordWave, type WaveRecord } from "@/server/services/run-state/wave-records";
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

/** Records one wave's rows (its skips and its pure steps' attempts) in one transaction. */
export async function recordWaveBody(
  run: { runId: string; workspaceId: string },
  rows: WaveRecord[],
): Promise<void> {
  const { db } = await stepRuntime();
  await recordWave(db, run, rows, runtimeNow());
}

import "server-only";
import { reapRuns } from "@/server/services/runs/reap-runs";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";

/** Every minute: see reapRuns (timeouts, unconfirmed cancels, stranded starts, queued runs). */
export async function reapRunsBody() {
  const { db, config } = await stepRuntime();
  return reapRuns(db, config, runtimeNow());
}

import "server-only";
import { finalizeCancelledRun, finishRun } from "@/server/services/run-state/finish-run";
import { runtimeNow, stepRuntime } from "./runtime";

/** The orchestrator itself failed after its retries (a bug or lasting outage): an internal failure. */
export async function failRunBody(a: { runId: string; message: string }) {
  const { db, config, log } = await stepRuntime();
  log.error("run orchestration failed", { runId: a.runId, err: a.message });
  await finishRun(
    db,
    config,
    {
      runId: a.runId,
      status: "failed",
      error: {
        code: "internal",
        class: "internal",
        message: "The run failed because of an internal error; it was logged.",
      },
      reason: "internal",
    },
    runtimeNow(),
  );
}

/** The durable executor cancelled the run (cancel request or deadline): finalize it. */
export async function finalizeCancelledBody(a: { runId: string }) {
  const { db, config } = await stepRuntime();
  return finalizeCancelledRun(db, config, a.runId, runtimeNow());
}

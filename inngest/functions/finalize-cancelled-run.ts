import { inngest, APP_ID } from "../client";
import { finalizeCancelledBody } from "@/server/services/step-execution/fail-bodies";

/**
 * When the durable executor cancels a run-workflow execution (a cancel request, or the reaper
 * stopping an overdue run), the run row is finalized here: leftover steps and approvals are
 * cancelled and the freed slot admits queued runs. A run that already ended is left alone.
 */
export const finalizeCancelledRun = inngest.createFunction(
  {
    id: "finalize-cancelled-run",
    name: "Finalize cancelled run",
    retries: 5,
    triggers: [
      {
        event: "inngest/function.cancelled",
        // `if`, not `expression`: the SDK (4.24) drops `expression` when it registers a trigger,
        // and the function then ran for every function's cancellation on a real Inngest.
        if: `event.data.function_id == "${APP_ID}-run-workflow"`,
      },
    ],
  },
  async ({ event, step }) => {
    const runId = (event.data as { event?: { data?: { runId?: string } } }).event?.data?.runId;
    if (!runId) return { skipped: "no run id" };
    return step.run("finalize", () => finalizeCancelledBody({ runId }));
  },
);

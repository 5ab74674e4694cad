import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { approvals, runs } from "@/db/schema";
import { isTerminalRunStatus } from "@/lib/workflow/status";
import { NotFoundError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { envelopeStatus, getRunEnvelope, type RunEnvelope } from "./run-envelope";

/**
 * The longest a caller may hold a request open waiting for a run. Below the 60 s default request
 * timeout of MCP clients (the official SDK's included), so a wait ends before the client gives up.
 */
export const MAX_RUN_WAIT_MS = 50_000;
export const DEFAULT_RUN_WAIT_MS = 30_000;

export const WaitForRunInput = z.object({
  runId: z.string().min(1).max(64),
  waitMs: z.number().int().min(0).max(MAX_RUN_WAIT_MS).default(DEFAULT_RUN_WAIT_MS),
});
export type WaitForRunInput = z.input<typeof WaitForRunInput>;

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;
/**
 * A gate's row commits together with its run's `waiting` status (openGate), so a gate on a run
 * still `running` means another branch is at work: wait this long for it to settle before
 * answering needs_approval, so a branch about to finish the run is not reported as stopped.
 */
const GATE_SETTLE_MS = 1_000;

/**
 * Waits until the run ends or stops at an open approval gate, at most `waitMs`, then answers its
 * envelope (`status: "running"` when the wait ran out). Polls two indexed lookups with backoff —
 * the engine may run in another process, so there is no in-memory signal to wait on. An aborted
 * `signal` (the client went away) ends the wait early.
 */
export async function waitForRun({
  ctx,
  input,
  signal,
}: {
  ctx: ServiceContext;
  input: unknown;
  signal?: AbortSignal;
}): Promise<RunEnvelope> {
  const ws = requireRole(ctx, "viewer");
  const parsed = WaitForRunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Wait");
  const { runId, waitMs } = parsed.data;
  const deadline = Date.now() + waitMs;
  let pause = FIRST_POLL_MS;
  let gateSeenAt: number | undefined;
  for (;;) {
    const [run] = await ctx.db
      .select({ status: runs.status })
      .from(runs)
      .where(and(eq(runs.id, runId), eq(runs.workspaceId, ws.id)));
    if (!run) throw new NotFoundError("Run", runId);
    if (isTerminalRunStatus(run.status)) break;
    const [gate] = await ctx.db
      .select({ id: approvals.id })
      .from(approvals)
      .where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")))
      .limit(1);
    if (gate && run.status !== "waiting") gateSeenAt ??= Date.now();
    const settled = !gate || run.status === "waiting" || Date.now() - gateSeenAt! >= GATE_SETTLE_MS;
    if (settled && envelopeStatus(run.status, gate !== undefined) !== "running") break;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) break;
    await sleep(Math.min(pause, left), signal);
    pause = Math.min(MAX_POLL_MS, Math.ceil(pause * 1.5));
  }
  return getRunEnvelope({ ctx, input: { runId } });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

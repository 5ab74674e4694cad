import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runSteps } from "@/db/schema";
import type { FailureClass, StepStatus } from "@/lib/workflow";
import { EXECUTING_STATUSES, TERMINAL_STEP_STATUSES } from "@/lib/workflow/status";
import { refreshRunStatus } from "./run-plan";
import { attemptIdentity, insertAttempt, type AttemptKey } from "./step-records";

/** A finished attempt's row, as a repeated delivery of it returns it (claimAttempt). */
export interface RecordedAttempt {
  status: StepStatus;
  output: unknown;
  error: Record<string, unknown> | null;
  failureClass: FailureClass | null;
  port: string | null;
  retryAfterMs: number | null;
}

export type AttemptClaim =
  | { kind: "claimed"; token: string; takeover: boolean }
  | { kind: "recorded"; row: RecordedAttempt };

/**
 * Claims a side-effecting attempt before its effect runs (compare-and-set, SPEC §10: a step body
 * never runs twice for one attempt). Engines deliver a step more than once — real Inngest runs a
 * lone step inline in each of several concurrent discoveries, any engine retries a request whose
 * answer was lost — so the first delivery inserts the row with a claim token and a lease, and:
 * - a delivery that finds the attempt finished gets its recorded result (`recorded`);
 * - one that finds it claimed and the lease alive waits for that result (polling);
 * - one that finds the lease lapsed (the holder's process died, or a row from before claims)
 *   takes the claim over (`takeover`): the effect runs again with the same Idempotency-Key, the
 *   at-least-once case every engine documents.
 * Lease times are the database's clock, so instances with skewed clocks agree.
 */
export async function claimAttempt(
  db: Db,
  key: AttemptKey,
  args: {
    input?: unknown;
    now: () => Date;
    token: string;
    leaseMs: number;
    refresh?: boolean;
    /** Gives up waiting for another holder at this time (ms since the epoch). */
    waitUntil: number;
    pollMs?: number;
  },
): Promise<AttemptClaim> {
  const lease = sql`now() + make_interval(secs => ${args.leaseMs / 1000})`;
  for (;;) {
    const now = args.now();
    const inserted = await insertAttempt(
      db,
      key,
      { status: "running", input: args.input, claimToken: args.token, claimedUntil: lease },
      now,
    );
    if (inserted) {
      if (args.refresh !== false) await refreshRunStatus(db, key.runId, now);
      return { kind: "claimed", token: args.token, takeover: false };
    }
    const id = attemptIdentity(key).id;
    const taken = await db
      .update(runSteps)
      .set({ claimToken: args.token, claimedUntil: lease as unknown as Date })
      .where(
        and(
          eq(runSteps.id, id),
          inArray(runSteps.status, [...EXECUTING_STATUSES]),
          sql`(${runSteps.claimedUntil} is null or ${runSteps.claimedUntil} < now())`,
        ),
      )
      .returning({ id: runSteps.id });
    if (taken.length) return { kind: "claimed", token: args.token, takeover: true };
    const row = await loadRecordedAttempt(db, key);
    if (row && (TERMINAL_STEP_STATUSES as readonly StepStatus[]).includes(row.status))
      return { kind: "recorded", row };
    if (Date.now() > args.waitUntil)
      return {
        kind: "recorded",
        row: {
          status: "failed",
          output: null,
          error: {
            message:
              "Another delivery of this step attempt is still running it; gave up waiting for its result",
          },
          failureClass: "operational",
          port: null,
          retryAfterMs: null,
        },
      };
    await new Promise((r) => setTimeout(r, args.pollMs ?? 100));
  }
}

/** Extends a held claim's lease; false when the claim is no longer this token's. */
export async function renewClaim(
  db: Db,
  key: AttemptKey,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  const rows = await db
    .update(runSteps)
    .set({
      claimedUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` as unknown as Date,
    })
    .where(
      and(
        eq(runSteps.id, attemptIdentity(key).id),
        eq(runSteps.claimToken, token),
        inArray(runSteps.status, [...EXECUTING_STATUSES]),
      ),
    )
    .returning({ id: runSteps.id });
  return rows.length > 0;
}

/** An attempt's recorded outcome columns (undefined when there is no row). */
export async function loadRecordedAttempt(
  db: Db,
  key: AttemptKey,
): Promise<RecordedAttempt | undefined> {
  const [row] = await db
    .select({
      status: runSteps.status,
      output: runSteps.output,
      error: runSteps.error,
      failureClass: runSteps.failureClass,
      port: runSteps.port,
      retryAfterMs: runSteps.retryAfterMs,
    })
    .from(runSteps)
    .where(eq(runSteps.id, attemptIdentity(key).id));
  return row;
}

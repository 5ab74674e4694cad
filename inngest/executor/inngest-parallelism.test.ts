/**
 * `parallelism: "inngest"`: the embedded executor schedules parallel steps as the real Inngest
 * server (v1.43) does, so the hang an untagged step after a fan-out causes there shows here too.
 * The siblings' completions are driven in a chosen order by holding requests in the transport:
 *
 *   D0 ──▶ [plan a, plan b, plan c]            pending set {a,b,c}, ForceStepPlan on
 *   b settles (race) ──▶ discovery Db           pending {a,c}; Db claimed with memo {b}, flag off
 *     a, c held until Db is in flight; then they settle (race) ──▶ discoveries Da, Dc
 *     Db held until a and c are saved; answers [plan a, plan c] (its memo is stale)
 *                                              SavePending: {a,c} — both already finished
 *   Da, Dc held until Db's answer is saved; run the step after the join:
 *     untagged  → inline, its result saved with {a,c} "pending" and it is not race-mode:
 *                 no discovery, nothing scheduled — the run hangs (as on Inngest)
 *     race-mode → planned once (idempotent `plan:` id), its result always discovers: completes
 */
import { createHash } from "node:crypto";
import { serve } from "inngest/next";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "../../db/client";
import { createTestDb, type TestDb } from "../../db/testing";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";
import { inProcessTransport, type ServeHandler, type Transport } from "./transport";

const bridge = executorBridge();
const inngest = testClient("inngest-par", bridge);
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const race = (id: string) => ({ id, parallelMode: "race" as const });
const [A, B, C] = [sha1("a"), sha1("b"), sha1("c")];

const counts = new Map<string, number>();
const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);

/** A fan-out of three race-mode steps, then `after` and `last` (race-mode too when `tagged`). */
function fanIn(id: string, tagged: boolean, checkpointing: boolean) {
  return inngest.createFunction(
    { id, triggers: [{ event: `ip/${id}` }], ...(checkpointing ? {} : { checkpointing: false }) },
    async ({ step }) => {
      const parts = await Promise.all(
        ["a", "b", "c"].map((s) =>
          step.run(race(s), () => {
            count(`${id}.${s}`);
            return s;
          }),
        ),
      );
      const after = await step.run(tagged ? race("after") : "after", () => {
        count(`${id}.after`);
        return parts.join("");
      });
      return step.run(tagged ? race("last") : "last", () => {
        count(`${id}.last`);
        return `${after}!`;
      });
    },
  );
}

const untagged = fanIn("untagged", false, false);
const tagged = fanIn("tagged", true, false);
const taggedCheckpointed = fanIn("tagged-ckpt", true, true);
const functions = [untagged, tagged, taggedCheckpointed];

let db: TestDb;
let h: Harness;

async function memoised(runId: string, ids: string[]): Promise<boolean> {
  const rows = await execRows(
    db.db,
    sql`select 1 from executor_steps where run_id = ${runId} and step_id = any(${sql.param(ids)}::text[])`,
  );
  return rows.length === ids.length;
}

async function pendingSet(runId: string): Promise<string[]> {
  const [r] = await execRows<{ p: string[] }>(
    db.db,
    sql`select inngest_pending as p from executor_runs where id = ${runId}`,
  );
  return r?.p ?? [];
}

/** Per run: Db (the discovery that saw only b) reached the transport. */
const dbInFlight = new Set<string>();

/** The schedule of the module comment, applied to every run. */
const scheduled: Transport = async (req) => {
  const url = new URL(req.url);
  if (req.method !== "POST") return inner(req);
  const body = JSON.parse(req.body) as { steps: Record<string, unknown>; ctx: { run_id: string } };
  const runId = body.ctx.run_id;
  const stepId = url.searchParams.get("stepId");
  const has = (id: string) => id in body.steps;
  if (stepId === A || stepId === C) {
    await h.until(() => dbInFlight.has(runId), `Db in flight before ${stepId} runs`);
  } else if (stepId === "step" && has(B) && !has(A) && !has(C)) {
    dbInFlight.add(runId);
    await h.until(() => memoised(runId, [A, C]), "a and c saved while Db is held");
  } else if (stepId === "step" && (has(A) || has(C))) {
    await h.until(async () => {
      const p = await pendingSet(runId);
      return p.includes(A) && p.includes(C) && (await memoised(runId, [A, C]));
    }, "Db's stale answer saved before Da/Dc run");
  }
  return inner(req);
};
let inner: Transport;

beforeAll(async () => {
  db = await createTestDb("inngest-parallelism");
  inner = inProcessTransport(serve({ client: inngest, functions }) as unknown as ServeHandler);
  h = await startHarness({
    client: inngest,
    functions,
    bridge,
    db,
    executor: { transport: scheduled, parallelism: "inngest", checkpointing: true },
  });
});

afterAll(async () => {
  await h?.close();
  await db?.close();
});

async function start(fn: string): Promise<string> {
  const eventId = await h.send(`ip/${fn}`);
  const [runId] = await h.executionsFor(eventId);
  return runId!;
}

describe('parallelism "inngest"', () => {
  it("an untagged step after racing fan-in completions hangs the run (Inngest's pending set)", async () => {
    const runId = await start("untagged");
    // Quiescent: `after` ran and nothing is queued, leased or waiting for the run any more.
    await h.until(async () => {
      const jobs = await execRows(db.db, sql`select 1 from executor_jobs where run_id = ${runId}`);
      return jobs.length === 0 && (await memoised(runId, [sha1("after")]));
    }, "the run to have nothing left scheduled");
    const run = await h.executor.admin.getExecution(runId);
    expect(run?.status).toBe("running");
    // The set still names a and c, both finished long ago: nothing will ever discover again.
    expect((await pendingSet(runId)).sort()).toEqual([A, C].sort());
    expect(await memoised(runId, [A, B, C])).toBe(true);
    expect(counts.get("untagged.after")).toBeGreaterThanOrEqual(1);
    expect(counts.get("untagged.last")).toBeUndefined();
    for (const s of ["a", "b", "c"]) expect(counts.get(`untagged.${s}`)).toBe(1);
  });

  it.each([
    ["tagged", "one request per step"],
    ["tagged-ckpt", "checkpointing"],
  ])("%s: race-mode steps after the fan-out complete, each body once (%s)", async (fn) => {
    const runId = await start(fn);
    const run = await h.waitForExecution(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("abc!");
    for (const s of ["a", "b", "c", "after", "last"]) expect(counts.get(`${fn}.${s}`)).toBe(1);
    // The same stale pending set as above: race-mode steps continue the run regardless.
    expect(dbInFlight.has(runId)).toBe(true);
  });
});

/**
 * A discovery answered from a stale memo (protocol §2.8, issue 11), reproduced deterministically:
 *
 *   a ─┐               a settles → discovery D (memo: a) is sent and held in the transport
 *      ├─▶ …           b settles while D is in flight → its own discovery is a duplicate of D
 *   b ─┘                 (one discovery per run) and is dropped
 *                      D answers: b is only re-reported (already done) → must NOT be a failed
 *                      call; the executor discovers again with the full memo.
 *
 * Before the fix the first shape recorded `function.errored` and waited out a backoff; the second
 * left `wb` unregistered until `wa` resumed (a branch blocked by its sibling's wait).
 */
import { createHash } from "node:crypto";
import { serve } from "inngest/next";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { createTestDb, type TestDb } from "../../db/testing";
import { defaultBackoff } from "./options";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";
import { inProcessTransport, type ServeHandler, type Transport } from "./transport";

const bridge = executorBridge();
const inngest = testClient("stale", bridge);
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const race = (id: string) => ({ id, parallelMode: "race" as const });

const fanIn = inngest.createFunction(
  { id: "fan-in", triggers: [{ event: "stale/fan-in" }] },
  async ({ step }) => {
    const [a, b] = await Promise.all([
      step.run(race("a"), () => "A"),
      step.run(race("b"), () => "B"),
    ]);
    return step.run("join", () => `${a}${b}`);
  },
);

const branchWaits = inngest.createFunction(
  { id: "branch-waits", triggers: [{ event: "stale/waits" }] },
  async ({ step }) => {
    const branch = async (name: string) => {
      await step.run(race(name), () => name);
      return step.waitForEvent(race(`w${name}`), { event: `stale/go-${name}`, timeout: "1h" });
    };
    const [ea, eb] = await Promise.all([branch("a"), branch("b")]);
    return [ea?.name ?? null, eb?.name ?? null];
  },
);

let db: TestDb;
let h: Harness;
/** Discoveries held until step "b" of their run is memoised (set per test). */
let holdUntilB = true;

beforeAll(async () => {
  db = await createTestDb("stale-discovery");
  const inner = inProcessTransport(
    serve({ client: inngest, functions: [fanIn, branchWaits] }) as unknown as ServeHandler,
  );
  const transport: Transport = async (req) => {
    const url = new URL(req.url);
    if (holdUntilB && req.method === "POST" && url.searchParams.get("stepId") === "step") {
      const body = JSON.parse(req.body) as {
        steps: Record<string, unknown>;
        ctx: { run_id: string };
      };
      if (sha1("a") in body.steps && !(sha1("b") in body.steps)) {
        await h.until(async () => {
          const rows = await execRows(
            db.db,
            sql`select 1 from executor_steps where run_id = ${body.ctx.run_id} and step_id = ${sha1("b")}`,
          );
          return rows.length > 0;
        }, "step b to be saved while the discovery is held");
      }
    }
    return inner(req);
  };
  // The production backoff: a failed call would stall the run for 15 s or more.
  h = await startHarness({
    client: inngest,
    functions: [fanIn, branchWaits],
    bridge,
    db,
    executor: { transport, backoff: defaultBackoff },
  });
});

afterAll(async () => {
  await h?.close();
  await db?.close();
});

async function errored(runId: string): Promise<unknown[]> {
  return execRows(
    db.db,
    sql`select error from executor_history where run_id = ${runId} and type = 'function.errored'`,
  );
}

describe("a discovery that only re-reports settled siblings", () => {
  it("is not a failed call: the run discovers again and completes at once", async () => {
    const eventId = await h.send("stale/fan-in");
    const [runId] = await h.executionsFor(eventId);
    const run = await h.waitForExecution(runId!, ["completed", "failed"], 10_000);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("AB");
    expect(await errored(runId!)).toEqual([]);
  });

  it("does not leave a sibling branch's wait unregistered behind another branch's wait", async () => {
    const eventId = await h.send("stale/waits");
    const [runId] = await h.executionsFor(eventId);
    await h.until(async () => {
      const r = await h.executor.admin.getExecution(runId!);
      return (
        r && ["wa", "wb"].every((n) => r.steps.some((s) => s.name === n && s.status === "waiting"))
      );
    }, "both branch waits to be registered before any event");
    holdUntilB = false;
    await h.send("stale/go-a");
    await h.send("stale/go-b");
    const run = await h.waitForExecution(runId!, ["completed", "failed"], 10_000);
    expect(run.output).toEqual(["stale/go-a", "stale/go-b"]);
    expect(await errored(runId!)).toEqual([]);
  });
});

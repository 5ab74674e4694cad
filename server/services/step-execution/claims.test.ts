/**
 * A side-effecting attempt is claimed before its effect (claimAttempt): however often and however
 * concurrently an engine delivers the same attempt, the effect runs once and every delivery gets
 * the recorded result; only a claim whose lease lapsed (its holder died) is taken over, and the
 * effect then repeats with the same Idempotency-Key.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEvents, runs, runSteps } from "@/db/schema";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import {
  runActionAttempt,
  STEP_CLAIM_LEASE_MS,
  type AttemptArgs,
} from "@/server/services/step-execution/action-attempt";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
let stub: LocalServer;
let runId: string;
let workflowId: string;

beforeAll(async () => {
  e = await startRunHarness("claims");
  stub = await startHttpServer(async (_req, res) => {
    await new Promise((r) => setTimeout(r, 200)); // long enough for deliveries to overlap
    return sendJson(res, 200, { ok: true });
  });
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  // A run to hang attempts on (it waits at its gate; the attempts below are extra paths).
  workflowId = await e.workflow({
    schemaVersion: 1,
    name: "Holder",
    steps: [{ id: "gate", type: "approval", config: { prompt: "hold" } }],
  });
  runId = await e.start(workflowId);
  await e.pendingApproval(runId);
});
afterAll(async () => {
  await stub?.close();
  await e?.close();
});

function args(path: string): AttemptArgs {
  return {
    key: { runId, workspaceId: e.ws.workspaceId, stepId: path, path, stepType: "http", attempt: 1 },
    workflowId,
    rootRunId: runId,
    config: { method: "POST", url: `${stub.origin}/${path}`, body: { p: path } },
    context: { input: {}, run: { id: runId } },
    deadline: Date.now() + 60_000,
  };
}
const calls = (path: string) => stub.requests.filter((r) => r.url === `/${path}`);

describe("claimed attempts", () => {
  it("concurrent deliveries of one attempt run the effect once and all answer its result", async () => {
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => runActionAttempt(args("twice"))));
    expect(calls("twice")).toHaveLength(1);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    for (const o of outcomes) expect(o).toEqual(outcomes[0]);
    const again = await runActionAttempt(args("twice"));
    expect(again).toEqual(outcomes[0]);
    expect(calls("twice")).toHaveLength(1);
    const rows = await e.db.db
      .select()
      .from(runSteps)
      .where(and(eq(runSteps.runId, runId), eq(runSteps.path, "twice")));
    expect(rows.map((r) => [r.status, r.attempt])).toEqual([["completed", 1]]);
    const events = (await e.events(runId)).filter((x) => x.endsWith(":twice"));
    expect(events).toEqual(["step.started:twice", "step.completed:twice"]);
  });

  it("records the attempt as before: one count on the run, its row, and both events with their data", async () => {
    const attemptsOf = async () =>
      (await e.db.db.select({ n: runs.stepAttempts }).from(runs).where(eq(runs.id, runId)))[0]!.n;
    const before = await attemptsOf();
    expect((await runActionAttempt(args("records"))).ok).toBe(true);
    expect(await runActionAttempt(args("records"))).toMatchObject({ ok: true });
    expect(await attemptsOf()).toBe(before + 1);
    const [row] = await e.db.db
      .select()
      .from(runSteps)
      .where(eq(runSteps.id, `${runId}:records:1`));
    expect(row).toMatchObject({ status: "completed", claimedUntil: null, port: null });
    expect(row!.input).toMatchObject({ method: "POST" });
    const events = await e.db.db
      .select({ type: runEvents.type, data: runEvents.data, at: runEvents.createdAt })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), eq(runEvents.stepPath, "records")))
      .orderBy(asc(runEvents.id));
    expect(events.map((x) => [x.type, x.data])).toEqual([
      ["step.started", { stepId: "records", type: "http", attempt: 1 }],
      [
        "step.completed",
        {
          stepId: "records",
          attempt: 1,
          durationMs: row!.finishedAt!.getTime() - row!.startedAt!.getTime(),
        },
      ],
    ]);
    expect(events.map((x) => x.at.getTime())).toEqual([
      row!.startedAt!.getTime(),
      row!.finishedAt!.getTime(),
    ]);
    expect((events[1]!.data as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(200);
  });

  it("a delivery that finds a live claim waits for the holder's result instead of running it", async () => {
    const a = args("held");
    await e.db.db.insert(runSteps).values({
      id: `${runId}:held:1`,
      runId,
      workspaceId: e.ws.workspaceId,
      stepId: "held",
      path: "held",
      stepType: "http",
      attempt: 1,
      status: "running",
      claimToken: "other-instance",
      claimedUntil: sql`now() + interval '30 seconds'` as unknown as Date,
    });
    const waiting = runActionAttempt(a);
    await new Promise((r) => setTimeout(r, 300));
    const recorded = { type: "http", data: { status: 201, body: "from the holder" }, meta: {} };
    await e.db.db
      .update(runSteps)
      .set({ status: "completed", output: recorded, port: "success", finishedAt: new Date() })
      .where(eq(runSteps.id, `${runId}:held:1`));
    expect(await waiting).toEqual({ ok: true, output: recorded, port: "success" });
    expect(calls("held")).toHaveLength(0);
  });

  it("a claim whose lease lapsed is taken over: the effect repeats with the same Idempotency-Key", async () => {
    await e.db.db.insert(runSteps).values({
      id: `${runId}:orphan:1`,
      runId,
      workspaceId: e.ws.workspaceId,
      stepId: "orphan",
      path: "orphan",
      stepType: "http",
      attempt: 1,
      status: "running",
      claimToken: "dead-instance",
      claimedUntil: sql`now() - interval '1 second'` as unknown as Date,
    });
    const out = await runActionAttempt(args("orphan"));
    expect(out.ok).toBe(true);
    expect(calls("orphan").map((r) => r.headers["idempotency-key"])).toEqual([`${runId}:orphan:1`]);
    const [row] = await e.db.db
      .select()
      .from(runSteps)
      .where(eq(runSteps.id, `${runId}:orphan:1`));
    expect(row!.status).toBe("completed");
    expect(row!.claimToken).not.toBe("dead-instance");
    expect(STEP_CLAIM_LEASE_MS).toBeGreaterThan(0);
  });

  it("a failure is recorded once and repeated deliveries answer the same failure", async () => {
    const a = { ...args("bad"), config: { method: "POST", url: "http://10.0.0.1/x" } };
    const [one, two] = await Promise.all([runActionAttempt(a), runActionAttempt(a)]);
    expect(one.ok).toBe(false);
    expect(two).toEqual(one);
    const rows = await e.db.db
      .select()
      .from(runSteps)
      .where(and(eq(runSteps.runId, runId), eq(runSteps.path, "bad")));
    expect(rows).toHaveLength(1);
  });
});

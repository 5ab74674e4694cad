import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorApps, executorFunctions, executorExecutions, runEvents, runs } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId, ulid } from "@/lib/ids";
import { createLogger, type Logger } from "@/lib/log";
import { createWorkspaceFixture, testConfig } from "@/server/testing/harness";
import type { ExecutionStatus } from "./engine-execution";
import { reapRuns } from "./reap-runs";

/*
 * The watchdog inside the reaper:
 *
 *   runs (running|waiting, idle > 2 min, inngest_run_id set) ──lookup──▶ engine
 *       running             → left alone
 *       ended  > 2 min ago  → failed: engine_execution_ended  (engine, id, final status)
 *       missing             → failed: engine_execution_missing
 *       lookup threw        → left alone, counted, logged
 */

const NOW = new Date("2030-01-01T12:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const MIN = 60_000;

let t: TestDb;
let workspaceId: string;

async function insertRun(o: {
  status?: "running" | "waiting";
  executionId?: string | null;
  updatedAt?: Date;
  startedAt?: Date | null;
}): Promise<string> {
  const id = newId("run");
  await t.db.insert(runs).values({
    id,
    workspaceId,
    version: "1.0.0",
    hash: "sha256:watchdog",
    status: o.status ?? "waiting",
    triggerType: "manual",
    initiatorType: "system",
    rootRunId: id,
    inngestRunId: o.executionId === undefined ? ulid() : o.executionId,
    startedAt: o.startedAt === undefined ? ago(60 * MIN) : o.startedAt,
    deadlineAt: new Date(NOW.getTime() + 86_400_000),
    updatedAt: o.updatedAt ?? ago(10 * MIN),
  });
  return id;
}

async function runRow(id: string) {
  const [row] = await t.db.select().from(runs).where(eq(runs.id, id));
  return row!;
}

/** A logger that keeps what was warned. */
function recordingLog(): Logger & { warnings: { msg: string; fields?: unknown }[] } {
  const base = createLogger({ test: true });
  const warnings: { msg: string; fields?: unknown }[] = [];
  return { ...base, warn: (msg, fields) => void warnings.push({ msg, fields }), warnings };
}

describe("watchdog (injected lookup)", () => {
  beforeAll(async () => {
    t = await createTestDb("watchdog");
    workspaceId = (await createWorkspaceFixture(t.db, "Watchdog")).workspaceId;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("fails a run whose execution ended, and one whose execution is missing, each with its reason", async () => {
    const ended = await insertRun({ status: "waiting" });
    const missing = await insertRun({ status: "running" });
    const healthy = await insertRun({ status: "waiting" });
    const endedId = (await runRow(ended)).inngestRunId!;
    const missingId = (await runRow(missing)).inngestRunId!;
    const answers = new Map<string, ExecutionStatus>([
      [endedId, { state: "ended", status: "failed", endedAt: ago(5 * MIN) }],
      [missingId, { state: "missing" }],
    ]);
    const log = recordingLog();
    const r = await reapRuns(t.db, testConfig, NOW, {
      executionStatus: async (id) => answers.get(id) ?? { state: "running" },
      log,
    });
    expect(r.orphaned).toBe(2);
    expect(r.lookupErrors).toBe(0);

    const a = await runRow(ended);
    expect(a.status).toBe("failed");
    expect(a.finishedAt).toEqual(NOW);
    expect(a.error).toMatchObject({ code: "engine_execution_ended", class: "internal" });
    expect(a.error!.message).toBe(
      `The run's engine execution ${endedId} on the embedded executor ended (failed) while the ` +
        "run was still waiting; nothing was left to continue it.",
    );
    const [finished] = await t.db
      .select()
      .from(runEvents)
      .where(eq(runEvents.runId, ended))
      .then((rows) => rows.filter((e) => e.type === "run.finished"));
    expect(finished!.data).toMatchObject({ status: "failed", reason: "engine_execution_ended" });

    const b = await runRow(missing);
    expect(b.status).toBe("failed");
    expect(b.error).toMatchObject({ code: "engine_execution_missing" });
    expect(b.error!.message).toContain(`engine execution ${missingId} does not exist`);

    expect((await runRow(healthy)).status).toBe("waiting");
    expect(log.warnings.map((w) => w.msg)).toEqual([
      "watchdog failed a run whose execution is gone",
      "watchdog failed a run whose execution is gone",
    ]);
  });

  it("never fails a run when the lookup fails: it logs and skips", async () => {
    const run = await insertRun({ status: "running" });
    const log = recordingLog();
    const r = await reapRuns(t.db, testConfig, NOW, {
      executionStatus: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:1");
      },
      log,
    });
    expect(r.orphaned).toBe(0);
    expect(r.lookupErrors).toBeGreaterThanOrEqual(1);
    expect((await runRow(run)).status).toBe("running");
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]!.msg).toMatch(/could not look up executions/);
    expect(JSON.stringify(log.warnings[0]!.fields)).toContain("ECONNREFUSED");
  });

  it("an unreachable Inngest server fails nothing", async () => {
    const run = await insertRun({ status: "waiting" });
    const r = await reapRuns(
      t.db,
      { ...testConfig, engine: { kind: "inngest", baseUrl: "http://127.0.0.1:1" } },
      NOW,
      { log: recordingLog() },
    );
    expect(r.orphaned).toBe(0);
    expect(r.lookupErrors).toBeGreaterThanOrEqual(1);
    expect((await runRow(run)).status).toBe("waiting");
  });

  it("looks only at runs idle past the grace period, and waits for an execution that only just ended", async () => {
    const busy = await insertRun({ status: "running", updatedAt: ago(30_000) });
    const justEnded = await insertRun({ status: "waiting" });
    const justEndedId = (await runRow(justEnded)).inngestRunId!;
    const asked: string[] = [];
    const r = await reapRuns(t.db, testConfig, NOW, {
      executionStatus: async (id) => {
        asked.push(id);
        return id === justEndedId
          ? { state: "ended", status: "completed", endedAt: ago(30_000) }
          : { state: "running" };
      },
      log: recordingLog(),
    });
    expect(asked).not.toContain((await runRow(busy)).inngestRunId);
    expect(asked).toContain(justEndedId);
    expect(r.orphaned).toBe(0);
    expect((await runRow(busy)).status).toBe("running");
    expect((await runRow(justEnded)).status).toBe("waiting");
  });

  it("a run that never got an execution is not looked up: the reaper re-sends its start", async () => {
    const stranded = await insertRun({ status: "running", executionId: null, startedAt: null });
    const r = await reapRuns(t.db, testConfig, NOW, {
      executionStatus: async () => ({ state: "missing" }),
      log: recordingLog(),
    });
    expect(r.restarted).toBeGreaterThanOrEqual(1);
    const row = await runRow(stranded);
    expect(row.status).toBe("running");
    expect(row.updatedAt).toEqual(NOW);
  });

  it("bounds the lookups per pass", async () => {
    for (let i = 0; i < 5; i++) await insertRun({ status: "waiting" });
    let asked = 0;
    const r = await reapRuns(t.db, testConfig, NOW, {
      executionStatus: async () => {
        asked++;
        return { state: "running" };
      },
      log: recordingLog(),
      batch: 3,
    });
    expect(asked).toBe(3);
    expect(r.orphaned).toBe(0);
  });
});

describe("watchdog on the embedded executor (default lookup: executor_runs)", () => {
  beforeAll(async () => {
    t = await createTestDb("watchdogembedded");
    workspaceId = (await createWorkspaceFixture(t.db, "Embedded")).workspaceId;
    await t.db.insert(executorApps).values({ id: "sluice", url: "http://127.0.0.1:1/api/inngest" });
    await t.db.insert(executorFunctions).values({
      id: "sluice-run-workflow",
      appId: "sluice",
      config: {},
      status: "active",
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function execution(status: "running" | "completed" | "cancelled", endedAt?: Date) {
    const id = ulid();
    await t.db.insert(executorExecutions).values({
      id,
      functionId: "sluice-run-workflow",
      status,
      event: {},
      events: [],
      endedAt: endedAt ?? null,
    });
    return id;
  }

  it("fails the run of a cancelled execution, leaves the run of a running one", async () => {
    const gone = await insertRun({
      status: "waiting",
      executionId: await execution("cancelled", ago(20 * MIN)),
    });
    const alive = await insertRun({ status: "waiting", executionId: await execution("running") });
    const r = await reapRuns(t.db, testConfig, NOW, { log: recordingLog() });
    expect(r).toMatchObject({ orphaned: 1, lookupErrors: 0 });
    const row = await runRow(gone);
    expect(row.status).toBe("failed");
    expect(row.error!.message).toMatch(
      /^The run's engine execution \w+ on the embedded executor ended \(cancelled\)/,
    );
    expect((await runRow(alive)).status).toBe("waiting");
  });
});

/**
 * The one transition rule (CONVENTIONS habit 6) on a real database: every status write is a
 * compare-and-set whose starting states come from lib/workflow/status.ts, so an illegal move is
 * refused (no row written) and a `from` outside the table throws before any SQL runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposals, runs, runSteps, workflowVersions } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { newId } from "@/lib/ids";
import { ACTIVE_RUN_STATUSES } from "@/lib/workflow/status";
import {
  createWorkspaceFixture,
  makeCtx,
  testConfig,
  type WorkspaceFixture,
} from "../../testing/harness";
import { startRun } from "../runs/start-run";
import { createWorkflow } from "../workflows/create-workflow";
import { beginAttempt, type AttemptKey } from "./step-records";
import {
  IllegalTransitionError,
  transitionProposal,
  transitionRun,
  transitionStep,
} from "./transition";

let t: TestDb;
let fx: WorkspaceFixture;
let workflowId: string;
beforeAll(async () => {
  t = await createTestDb("transition");
  fx = await createWorkspaceFixture(t.db, "Transition");
  workflowId = (await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "CAS" } })).id;
});
afterAll(async () => {
  await t?.close();
});

/** The owner's context under a workspace limit of `active` runs (the user limit out of the way). */
function ownerWithLimit(active: number) {
  return makeCtx(
    t.db,
    { type: "user", userId: fx.members.owner },
    { id: fx.workspaceId, role: "owner" },
    { config: { ...testConfig, maxActiveRunsPerUser: 1_000, maxActiveRunsPerWorkspace: active } },
  );
}

/** A run that was admitted (`running`), nothing driving it. */
async function runningRun(): Promise<string> {
  const r = await startRun({ ctx: ownerWithLimit(1_000), input: { workflowId } });
  expect(r.status).toBe("running");
  return r.runId;
}

/** A run left `queued`: the workspace allows as many active runs as it already has. */
async function queuedRun(): Promise<string> {
  await runningRun();
  const [row] = await t.db
    .select({ n: sql<number>`count(*)::int` })
    .from(runs)
    .where(
      and(eq(runs.workspaceId, fx.workspaceId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])),
    );
  const r = await startRun({ ctx: ownerWithLimit(row!.n), input: { workflowId } });
  expect(r.status).toBe("queued");
  return r.runId;
}

async function runStatus(id: string) {
  const [row] = await t.db.select({ status: runs.status }).from(runs).where(eq(runs.id, id));
  return row?.status;
}

describe("transitionRun", () => {
  it("moves a run along an allowed transition once: the second writer loses", async () => {
    const id = await runningRun();
    const first = await transitionRun(t.db, { id, to: "cancel_requested" });
    expect(first).toEqual({ won: true, rows: [{ id }] });
    const again = await transitionRun(t.db, { id, to: "cancel_requested" });
    expect(again).toEqual({ won: false, rows: [] });
    expect(await runStatus(id)).toBe("cancel_requested");
  });

  it("refuses an illegal transition: a finished run never runs again, a queued run never waits", async () => {
    const done = await runningRun();
    expect((await transitionRun(t.db, { id: done, to: "completed" })).won).toBe(true);
    for (const to of ["running", "waiting", "failed", "cancelled", "queued"] as const) {
      const r = await transitionRun(t.db, { id: done, to, set: { output: { overwritten: to } } });
      expect(r.won, `completed → ${to}`).toBe(false);
    }
    const [row] = await t.db.select().from(runs).where(eq(runs.id, done));
    expect(row).toMatchObject({ status: "completed", output: null });

    const queued = await queuedRun();
    expect((await transitionRun(t.db, { id: queued, to: "waiting" })).won).toBe(false);
    expect((await transitionRun(t.db, { id: queued, to: "completed" })).won).toBe(false);
    expect(await runStatus(queued)).toBe("queued");
  });

  it("throws when a write names a starting state the table forbids, and writes nothing", async () => {
    const id = await runningRun();
    await expect(
      transitionRun(t.db, { id, to: "cancel_requested", from: ["running", "queued"] }),
    ).rejects.toThrow(IllegalTransitionError);
    await expect(
      transitionRun(t.db, { id, to: "cancel_requested", from: ["queued"] }),
    ).rejects.toThrow(/Illegal run transition queued → cancel_requested/);
    expect(await runStatus(id)).toBe("running");
  });

  it("a narrowed `from` leaves rows in the other allowed states alone", async () => {
    const running = await runningRun();
    const queued = await queuedRun();
    const r = await transitionRun(t.db, {
      id: [running, queued],
      to: "cancelled",
      from: ["queued"],
    });
    expect(r.rows).toEqual([{ id: queued }]);
    expect(await runStatus(running)).toBe("running");
    expect(await runStatus(queued)).toBe("cancelled");
  });

  it("a target chosen in SQL only touches runs that may reach both choices", async () => {
    const running = await runningRun();
    const queued = await queuedRun();
    const moved = await transitionRun(t.db, {
      id: [running, queued],
      to: { when: sql`false`, then: "running", else: "waiting" },
      returning: { id: runs.id, status: runs.status },
    });
    expect(moved.rows).toEqual([{ id: running, status: "waiting" }]);
    const back = await transitionRun(t.db, {
      id: [running, queued],
      to: { when: sql`true`, then: "running", else: "waiting" },
      returning: { id: runs.id, status: runs.status },
    });
    expect(back.rows).toEqual([{ id: running, status: "running" }]);
    expect(await runStatus(queued)).toBe("queued");
  });

  it("needs rows to write: no id and no where is a bug, not an update of every run", async () => {
    await expect(transitionRun(t.db, { to: "failed" })).rejects.toThrow(/needs an id or a where/);
  });
});

describe("transitionStep", () => {
  it("refuses moving a finished attempt; moves a running one to waiting, then to completed", async () => {
    const runId = await runningRun();
    const key: AttemptKey = {
      runId,
      workspaceId: fx.workspaceId,
      stepId: "a",
      path: "a",
      stepType: "transform",
      attempt: 1,
    };
    await beginAttempt(t.db, key, { now: new Date(), refresh: false });
    const row = eq(runSteps.id, `${runId}:a:1`);
    expect((await transitionStep(t.db, { where: row, to: "waiting" })).won).toBe(true);
    expect((await transitionStep(t.db, { where: row, to: "waiting" })).won).toBe(false);
    expect((await transitionStep(t.db, { where: row, to: "completed" })).won).toBe(true);
    for (const to of ["running", "waiting", "failed", "skipped", "pending"] as const)
      expect((await transitionStep(t.db, { where: row, to })).won, `completed → ${to}`).toBe(false);
    const [step] = await t.db.select({ status: runSteps.status }).from(runSteps).where(row);
    expect(step?.status).toBe("completed");
    await expect(
      transitionStep(t.db, { where: row, to: "skipped", from: ["running"] }),
    ).rejects.toThrow(/Illegal step transition running → skipped/);
  });
});

describe("transitionProposal", () => {
  it("decides a pending proposal once and never reopens a closed one", async () => {
    const [version] = await t.db
      .select()
      .from(workflowVersions)
      .where(eq(workflowVersions.workflowId, workflowId))
      .limit(1);
    const id = newId("prp");
    await t.db.insert(proposals).values({
      id,
      workspaceId: fx.workspaceId,
      workflowId,
      baseVersionId: version!.id,
      baseVersion: version!.version,
      baseHash: version!.hash,
      proposedHash: version!.hash,
      summary: "CAS",
      inputKind: "definition",
      authorType: "user",
      authorId: fx.members.editor,
      authorName: "Editor",
      authorRole: "editor",
      risk: "low",
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    expect((await transitionProposal(t.db, { id, to: "rejected" })).won).toBe(true);
    expect((await transitionProposal(t.db, { id, to: "approved" })).won).toBe(false);
    expect((await transitionProposal(t.db, { id, to: "applied" })).won).toBe(false);
    const [p] = await t.db
      .select({ status: proposals.status })
      .from(proposals)
      .where(eq(proposals.id, id));
    expect(p?.status).toBe("rejected");
  });
});

/*
 * Every app-side write of a run, step, approval, task or proposal status is one of the helpers
 * above: a `.update(runs | runSteps | …)` chain whose `.set({…})` names `status`, or raw SQL
 * `update runs | run_steps | … set … status =`, anywhere else re-encodes the rule.
 */
describe("no status write bypasses the transition helpers", () => {
  const root = path.resolve(import.meta.dirname, "../../..");
  function* sources(dir: string): Generator<string> {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "conformance") yield* sources(p);
      } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) yield p;
    }
  }
  const HELPER = path.join(root, "server/services/run-state/transition.ts");
  const builder =
    /\.update\((runs|runSteps|proposals|approvals|tasks)\)\s*\.set\(\{([^}]|\{[^}]*\})*?(?<![\w$.])status\s*[:,}]/g;
  const raw =
    /update\s+(runs|run_steps|proposals|approvals|tasks)\s+set\b[^`;]*?(?<![\w$.])status\s*=/gi;

  it("finds no other writer in server/, inngest/, app/ and lib/", () => {
    const offenders: string[] = [];
    for (const top of ["server", "inngest", "app", "lib"])
      for (const file of sources(path.join(root, top))) {
        if (file === HELPER) continue;
        const text = readFileSync(file, "utf8");
        for (const m of [...text.matchAll(builder), ...text.matchAll(raw)])
          offenders.push(`${path.relative(root, file)}: ${m[0].slice(0, 60)}`);
      }
    expect(offenders).toEqual([]);
  });

  it("the patterns catch the writes they are meant to catch", () => {
    const samples = [
      'tx.update(runs).set({ status: "running", updatedAt: now })',
      "db\n  .update(runSteps)\n  .set({\n    error: { message: m },\n    status,\n  })",
      "sql`update run_steps set status = 'failed' where id = ${id}`",
      "sql`UPDATE proposals SET updated_at = now(), status = 'expired'`",
      'tx.update(tasks).set({ status: "expired", finishedAt: now })',
      "sql`update approvals set status = 'cancelled'`",
    ];
    for (const s of samples) {
      builder.lastIndex = 0;
      raw.lastIndex = 0;
      expect(builder.test(s) || raw.test(s), s).toBe(true);
    }
    builder.lastIndex = 0;
    raw.lastIndex = 0;
    expect(builder.test("tx.update(proposals).set({ dryRunStatus: 'running' })")).toBe(false);
    expect(builder.test("tx.update(proposals).set({ dryRunStatus: args.status })")).toBe(false);
    expect(raw.test("update runs set step_attempts = step_attempts + 1")).toBe(false);
  });
});

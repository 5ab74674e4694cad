/**
 * The app's step tagging on an executor that schedules parallel steps as real Inngest 1.43 does
 * (`parallelism: "inngest"`, inngest/executor/README.md "Parallelism modes"):
 *
 *   f0 ─┐
 *   f1 ─┼─▶ join (http) ─▶ done (transform)      four http calls to a local counting server
 *   f2 ─┤
 *   f3 ─┘
 *
 * Ten runs at once. Every run must complete, and every URL be called once per run. With the old
 * tagging (`legacyTagging.on`: only steps running alongside others race-tagged) the join ran
 * untagged after the fan-in: Inngest's pending set, refilled with finished siblings by racing
 * discoveries, then never let the run continue — a run hung. (A repeated delivery of the join
 * would not repeat its call: the app claims each side-effecting attempt first.) A hung run is
 * detected without waiting out a timeout: the executor has nothing queued, leased or waiting and
 * the outbox is empty, yet a run is still `running` — nothing can ever move it again.
 *
 * Checked by hand: with `legacyTagging.on = true` this fails on Postgres (most of the ten runs hang:
 * a discovery claimed with f0 alone re-plans f1–f3 after they finished). On PGlite, which runs one
 * statement at a time, the calls of a run never overlap enough to race, and it passes either way.
 */
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRows } from "@/db/client";
import { runs, workspaces } from "@/db/schema";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

const RUNS = 10;
const FINAL = ["completed", "failed", "cancelled"];

let e: RunHarness;
let api: LocalServer;
let workflowId = "";

beforeAll(async () => {
  // One request per step (no checkpointing) and room for every run's calls at once: each untagged
  // step after the join is then its own result, which is where Inngest's pending set decides.
  e = await startRunHarness("fidelity", {
    executor: { parallelism: "inngest", checkpointing: false, concurrency: 64 },
  });
  // f0 answers at once, its siblings a little later: f0's discovery is in flight while they finish.
  api = await startHttpServer(async (req, res) => {
    const m = req.url?.match(/^\/fan\/(\d)/);
    if (m && m[1] !== "0") await new Promise((r) => setTimeout(r, 15));
    sendJson(res, 200, { ok: true });
  });
  // Admission would queue runs past 5 per user; this suite is about the engine.
  await e.db.db
    .update(workspaces)
    .set({ settings: { maxActiveRunsPerUser: 100, maxActiveRunsPerWorkspace: 100 } })
    .where(eq(workspaces.id, e.ws.workspaceId));
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  const fan = [0, 1, 2, 3].map((i) => ({
    id: `f${i}`,
    type: "http",
    config: { method: "GET", url: `${api.origin}/fan/${i}?tag={{ input.tag }}` },
  }));
  workflowId = await e.workflow({
    schemaVersion: 1,
    name: "Fan-in then join",
    inputs: { tag: { type: "string", required: true } },
    steps: [
      ...fan,
      {
        id: "join",
        type: "http",
        config: { method: "GET", url: `${api.origin}/join?tag={{ input.tag }}` },
      },
      { id: "done", type: "transform", config: { value: "{{ steps.join.output.data.status }}" } },
    ],
    edges: [...fan.map((f) => ({ from: f.id, to: "join" })), { from: "join", to: "done" }],
    output: "{{ steps.done.output }}",
  });
});

afterAll(async () => {
  await api?.close();
  await e?.close();
});

/** Nothing left that could move any run: no executor job or pending wait, no undelivered event. */
async function quiescent(): Promise<boolean> {
  const [r] = await execRows<{ jobs: number; pauses: number; outbox: number }>(
    e.db.db,
    sql`select (select count(*) from executor_jobs)::int as jobs,
               (select count(*) from executor_pauses where status = 'pending')::int as pauses,
               (select count(*) from outbox where delivered_at is null)::int as outbox`,
  );
  return r!.jobs === 0 && r!.pauses === 0 && r!.outbox === 0;
}

describe('the app\'s step tagging on parallelism "inngest"', () => {
  it("fan-in to an http join: every run completes, every URL called once per run", async () => {
    const tags = Array.from({ length: RUNS }, (_, i) => `t${i}`);
    const runIds = await Promise.all(tags.map((tag) => e.start(workflowId, { tag })));
    const rows = await e.h.until(
      async () => {
        const rs = await e.db.db.select().from(runs).where(inArray(runs.id, runIds));
        if (rs.every((r) => FINAL.includes(r.status))) return rs;
        // Checked twice around the run read, so a run moving between the two reads is not "hung".
        if (!(await quiescent())) return undefined;
        const again = await e.db.db.select().from(runs).where(inArray(runs.id, runIds));
        return (await quiescent()) ? again : undefined;
      },
      "every run to finish or the engine to go quiet",
      25_000,
    );
    const hung = rows.filter((r) => !FINAL.includes(r.status)).map((r) => r.id);
    expect(hung, `runs left running with nothing scheduled: ${hung.join(", ")}`).toEqual([]);
    for (const r of rows) expect(r.status, JSON.stringify(r.error)).toBe("completed");
    const calls = new Map<string, number>();
    for (const q of api.requests) calls.set(q.url, (calls.get(q.url) ?? 0) + 1);
    for (const tag of tags) {
      expect(calls.get(`/join?tag=${tag}`), `join of ${tag}`).toBe(1);
      for (let i = 0; i < 4; i++) expect(calls.get(`/fan/${i}?tag=${tag}`)).toBe(1);
    }
  });
});

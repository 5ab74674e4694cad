/**
 * Parallel shapes end to end with the production retry backoff (a stalled run waits it out, as in
 * production): completion time of a 4-branch fan-out + join, p50/p99 over N runs started one after
 * another, and how many runs recorded a failed SDK call (`function.errored`, the stall of issue 11).
 * BENCH_FANOUT_SHAPES=all also runs the other parallel shapes (2-branch, 5 fan-out stages, a
 * fan-out inside a loop body) for the same number of runs each. Always also: issue 28's shape, 4
 * side-effecting branches (`http` GETs to a local stub) + a join, timed the same way.
 *   npm run bench    ·    BENCH_FANOUT_RUNS=1000 BENCH_FANOUT_SHAPES=all node <bundle>
 */
import { eq, sql } from "drizzle-orm";
import { execRows } from "../db/client";
import { workspaces } from "../db/schema";
import { defaultBackoff } from "../inngest/executor/options";
import { allowLocalStub } from "../server/testing/allow-local-stub";
import { sendJson, startHttpServer } from "../server/testing/local-http";
import { startRunHarness, type RunHarness } from "../server/testing/run-harness";
import {
  fanOut,
  fanOutInLoop,
  fanOutStages,
} from "../inngest/run-driver/test-fixtures/parallel-shapes";
import { median, percentile, report, round } from "./stats";

const RUNS = Number(process.env.BENCH_FANOUT_RUNS ?? 100);
const ALL_SHAPES = process.env.BENCH_FANOUT_SHAPES === "all";

function shapes(): Record<string, Record<string, unknown>> {
  if (!ALL_SHAPES) return { "fan-out 4 + join": fanOut(4) };
  return {
    "fan-out 4 + join": fanOut(4),
    "fan-out 2 + join": fanOut(2),
    "25 transforms in 5 fan-out stages": fanOutStages(),
    "fan-out inside a loop body (4 items, concurrency 2)": fanOutInLoop(),
  };
}

async function measure(
  e: RunHarness,
  name: string,
  definition: Record<string, unknown>,
  driver: string,
) {
  const wf = await e.workflow({ schemaVersion: 1, name, ...definition });
  const times: number[] = [];
  const executions: string[] = [];
  for (let r = 0; r < RUNS + 1; r++) {
    const runId = await e.start(wf);
    const done = await e.waitFor(runId, ["completed", "failed"], { timeoutMs: 300_000 });
    if (done.status !== "completed") throw new Error(`${name}: run ${done.status}`);
    if (r === 0) continue; // warm-up
    times.push(done.finishedAt!.getTime() - done.startedAt!.getTime());
    executions.push(done.inngestRunId!);
  }
  const [stalls] = await execRows<{ n: number }>(
    e.db.db,
    sql`select count(distinct run_id)::int as n from executor_history
        where type = 'function.errored' and run_id = any(${sql.param(executions)}::text[])`,
  );
  report(`parallel shape completion: ${name} (${driver}, production backoff)`, {
    runs: RUNS,
    p50Ms: round(median(times)),
    p99Ms: round(percentile(times, 99)),
    maxMs: round(Math.max(...times)),
    stalledRuns: stalls?.n ?? 0,
  });
}

async function main() {
  if (process.env.BENCH_DATABASE_URL) {
    process.env.SLUICE_TEST_DB = "postgres";
    process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  }
  const driver = process.env.BENCH_DATABASE_URL ? "postgres" : "pglite";
  const e = await startRunHarness("bench-fanout", { executor: { backoff: defaultBackoff } });
  await e.db.db
    .update(workspaces)
    .set({ settings: { maxActiveRunsPerUser: 1000, maxActiveRunsPerWorkspace: 1000 } })
    .where(eq(workspaces.id, e.ws.workspaceId));
  await allowLocalStub(e.ws);
  const stub = await startHttpServer((_req, res) => sendJson(res, 200, { ok: true }));
  try {
    for (const [name, def] of Object.entries(shapes())) await measure(e, name, def, driver);
    const branches = ["b0", "b1", "b2", "b3"];
    await measure(
      e,
      "fan-out of 4 http branches + join",
      {
        steps: [
          ...branches.map((id) => ({
            id,
            type: "http",
            config: { method: "GET", url: `${stub.origin}/${id}` },
          })),
          { id: "join", type: "transform", config: { value: "{{ steps.b0.output.data.status }}" } },
        ],
        edges: branches.map((from) => ({ from, to: "join" })),
      },
      driver,
    );
  } finally {
    await stub.close();
    await e.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

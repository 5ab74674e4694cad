/**
 * Killing the server mid-run loses no run and no step result (SPEC §10): the whole stack runs in a
 * child process on a PGlite folder (or a fresh Postgres database); the test kills it with SIGKILL
 * while the run sleeps in a delay, starts it again on the same data, and checks that the run
 * completes with every step recorded exactly once and its event delivered once.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, testDriver, type TestDb } from "@/db/testing";
import { readChildState, startCrashChild, untilState } from "./test-fixtures/crash-child";

let dir: string;
let target: string;
let pg: TestDb | undefined;
let child: ChildProcess | undefined;

interface State {
  runId: string;
  status?: string;
  steps: { path: string; attempt: number; status: string; output?: unknown }[];
  pausedInWave?: boolean;
  completedEvents?: string[];
  events: { name: string; deliveredAt: string | null }[];
  eventRuns: { id: string; status: string; output: unknown }[];
  redelivered?: boolean;
}

async function start(
  mode: "setup" | "resume" | "emit" | "chain" | "wave",
  runId?: string,
  extra: Record<string, string> = {},
): Promise<ChildProcess> {
  return (await startCrashChild({ target, dir, mode, runId, env: extra })).proc;
}

const state = () => readChildState<State>(dir);
const until = <T>(check: () => T | undefined | false, what: string, ms = 30_000) =>
  untilState(dir, check, what, ms);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-engine-crash-"));
  if (testDriver() === "postgres") {
    pg = await createTestDb("enginecrash");
    target = pg.url!;
  } else target = path.join(dir, "pglite");
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await pg?.close();
});

describe("engine crash safety", () => {
  it("a run killed mid-delay completes after a restart with no lost or duplicated step", async () => {
    child = await start("setup");
    const waiting = await until(
      () => state()?.status === "waiting" && state(),
      "the run to wait in its delay",
    );
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    child = await start("resume", waiting.runId);
    const done = await until(
      () =>
        state()?.status === "completed" && state()!.events.every((e) => e.deliveredAt) && state(),
      "the run to complete",
      60_000,
    );
    child.kill("SIGKILL");
    const completed = done.steps.filter((s) => s.status === "completed").map((s) => s.path);
    expect(completed.sort()).toEqual(["a", "announce", "b", "pause"]);
    // One row per step attempt: nothing recorded twice.
    expect(new Set(done.steps.map((s) => `${s.path}@${s.attempt}`)).size).toBe(done.steps.length);
    expect(done.events).toHaveLength(1);
  }, 240_000);

  it("a checkpointed chain killed mid-way completes after a restart: every step once, the event once", async () => {
    // A fresh database for this scenario.
    if (pg) {
      await pg.close();
      pg = await createTestDb("enginecrash");
      target = pg.url!;
    } else target = path.join(dir, "pglite-chain");
    fs.rmSync(path.join(dir, "state.json"), { force: true });
    // The per-step path (engine version 1): with waves the chain is one durable step.
    child = await start("chain", undefined, { SLUICE_ENGINE_VERSION: "1" });
    const midway = await until(() => {
      const st = state();
      const done = st?.steps.filter((s) => s.status === "completed").length ?? 0;
      return st?.status === "running" && done >= 30 && done < 140 && st;
    }, "the chain to be part-way through");
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    child = await start("resume", midway.runId);
    const done = await until(
      () =>
        state()?.status === "completed" && state()!.events.every((e) => e.deliveredAt) && state(),
      "the chain to complete",
      120_000,
    );
    child.kill("SIGKILL");
    const completed = done.steps.filter((s) => s.status === "completed").map((s) => s.path);
    const expected = [...Array.from({ length: 150 }, (_, i) => `s${i}`), "announce"];
    // Every step completed exactly once (the interrupted one may have an extra, unfinished attempt).
    expect(completed.sort()).toEqual(expected.sort());
    expect(new Set(done.steps.map((s) => `${s.path}@${s.attempt}`)).size).toBe(done.steps.length);
    expect(done.steps.length - completed.length).toBeLessThanOrEqual(1);
    expect(done.events).toHaveLength(1);
  }, 300_000);

  /*
   *   a0 … a9 ─▶ mid (emit_event) ─▶ b0 … b19 ─▶ announce (emit_event)
   *                                  └ killed here: the wave's rows committed, its result not memoized
   */
  it("a run killed in the middle of a wave completes after a restart: every step once with one result, each event once", async () => {
    if (pg) {
      await pg.close();
      pg = await createTestDb("wavecrash");
      target = pg.url!;
    } else target = path.join(dir, "pglite-wave");
    fs.rmSync(path.join(dir, "state.json"), { force: true });
    child = await start("wave", undefined, { ENGINE_WAVE_PAUSE: "1" });
    // The state is written every 100 ms: wait for one that read the committed rows too.
    const paused = await until(
      () =>
        state()?.pausedInWave &&
        state()!.steps.filter((s) => s.path.startsWith("b")).length === 20 &&
        state(),
      "the b wave to be recorded",
    );
    expect(paused.status).toBe("running");
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    child = await start("resume", paused.runId);
    const done = await until(
      () =>
        state()?.status === "completed" && state()!.events.every((e) => e.deliveredAt) && state(),
      "the run to complete",
      120_000,
    );
    child.kill("SIGKILL");
    const chain = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const expected = [...chain("a", 10), "mid", ...chain("b", 20), "announce"];
    expect(done.steps.map((s) => s.path).sort()).toEqual([...expected].sort());
    expect(done.steps.every((s) => s.status === "completed" && s.attempt === 1)).toBe(true);
    // The wave ran twice (before and after the kill); its steps were recorded once, with the
    // first execution's results, and the run went on with results equal to them.
    const data = (p: string) =>
      (done.steps.find((s) => s.path === p)!.output as { data: string }).data;
    for (let i = 1; i < 20; i++) expect(data(`b${i}`)).toBe(`b${data(`b${i - 1}`)}`);
    expect([...(done.completedEvents ?? [])].sort()).toEqual([...expected].sort());
    expect(done.events.map((e) => e.name).sort()).toEqual(["crash.done", "crash.mid"]);
  }, 300_000);

  it("an event committed but not delivered when the process is killed is delivered exactly once after restart", async () => {
    // A fresh database for this scenario.
    if (pg) {
      await pg.close();
      pg = await createTestDb("outboxcrash");
      target = pg.url!;
    } else target = path.join(dir, "pglite-outbox");
    fs.rmSync(path.join(dir, "state.json"), { force: true });
    child = await start("emit");
    // Committed, never delivered: the relay does not run in this mode.
    const committed = await until(
      () => state()?.events.some((e) => e.name === "order.paid") && state(),
      "the event to commit",
    );
    expect(committed.events.find((e) => e.name === "order.paid")!.deliveredAt).toBeNull();
    expect(committed.eventRuns).toEqual([]);
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    // Restart with the relay; the first delivery is then forgotten once and delivered again.
    child = await start("resume", "", { ENGINE_REDELIVER: "1" });
    const delivered = (s: State | undefined) =>
      !!s?.events.find((e) => e.name === "order.paid")?.deliveredAt;
    const done = await until(
      () => {
        const s = state();
        return s &&
          s.redelivered &&
          delivered(s) &&
          s.eventRuns.length > 0 &&
          s.eventRuns.every((r) => r.status === "completed")
          ? s
          : undefined;
      },
      "the event's run to complete after a redelivery",
      60_000,
    );
    // Give the forced redelivery time to happen, then check that it started nothing new.
    await new Promise((r) => setTimeout(r, 1_500));
    const final = state()!;
    child.kill("SIGKILL");
    expect(final.redelivered).toBe(true);
    expect(delivered(final)).toBe(true);
    expect(final.eventRuns).toHaveLength(1);
    expect(final.eventRuns[0]!.output).toBe("o-42");
    expect(done.eventRuns[0]!.id).toBe(final.eventRuns[0]!.id);
  }, 240_000);
});

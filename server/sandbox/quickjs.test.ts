/**
 * The warm worker pool keeps jobs apart: consecutive jobs on the same worker share no guest
 * state, and a timeout or memory blow-up fails that job only. A cancelled job's worker is ended.
 */
import { describe, expect, it } from "vitest";
import { idleQuickJsWorkers, runQuickJs, type QuickJsRunOptions } from "./quickjs";

const run = (source: string, extra: Partial<QuickJsRunOptions> = {}) =>
  runQuickJs({
    source,
    input: null,
    context: {},
    timeoutMs: 5_000,
    memoryBytes: 32 * 1024 * 1024,
    ...extra,
  });

/** The idle worker the next job takes (the pool hands out the most recently released one). */
const nextWorker = () => idleQuickJsWorkers().at(-1);

/** Runs a job and returns its outcome with the worker it ran on and the one released last after. */
async function onWorker(source: string, extra: Partial<QuickJsRunOptions> = {}) {
  const ranOn = nextWorker();
  const outcome = await run(source, extra);
  return { outcome, ranOn, after: nextWorker() };
}

describe("QuickJS warm pool", () => {
  it("reuses a worker without leaking globals, prototypes or module state between jobs", async () => {
    await run("export default () => 1");
    const warm = nextWorker();
    expect(warm).toBeDefined();
    const first = await onWorker(`
      globalThis.leak = "step 1";
      Object.prototype.polluted = true;
      Array.prototype.push = () => "hijacked";
      JSON.stringify = () => "hijacked";
      export default () => "set";`);
    expect(first.outcome).toMatchObject({ ok: true, result: "set" });
    expect(first.ranOn).toBe(warm);
    expect(first.after).toBe(warm);
    const second = await onWorker(`
      export default () => {
        const a = [];
        a.push(1);
        return [typeof globalThis.leak, ({}).polluted === undefined, a.length, JSON.stringify({ x: 1 })];
      };`);
    expect(second.ranOn).toBe(warm);
    expect(second.after).toBe(warm);
    expect(second.outcome).toMatchObject({
      ok: true,
      result: ["undefined", true, 1, '{"x":1}'],
    });
  });

  it("interrupts an infinite loop and the same worker then runs the next job", async () => {
    await run("export default () => 1");
    const warm = nextWorker();
    const loop = await onWorker("export default () => { while (true) {} }", { timeoutMs: 200 });
    expect(loop.outcome).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(loop.ranOn).toBe(warm);
    expect(loop.after).toBe(warm);
    const next = await onWorker("export default (input) => input * 2", { input: 21 });
    expect(next.outcome).toMatchObject({ ok: true, result: 42 });
    expect(next.ranOn).toBe(warm);
    expect(next.after).toBe(warm);
  });

  it("fails only the job that blows its memory, objects or typed arrays", async () => {
    await run("export default () => 1");
    const warm = nextWorker();
    for (const bomb of [
      "export default () => { const a = []; while (true) a.push(new Array(100000).fill(a.length)); }",
      "export default () => { const a = []; while (true) a.push(new Uint8Array(65536).fill(1)); }",
    ]) {
      const blown = await onWorker(bomb, { memoryBytes: 16 * 1024 * 1024 });
      expect(blown.outcome).toMatchObject({ ok: false, error: { kind: "memory" } });
      // A small job right after gets a whole fresh heap on the same worker.
      const next = await onWorker(
        "export default () => new Array(1000).fill(7).reduce((a, b) => a + b, 0)",
      );
      expect(next.outcome).toMatchObject({ ok: true, result: 7000 });
      expect(next.ranOn).toBe(warm);
      expect(next.after).toBe(warm);
    }
  });

  it("runs concurrent jobs on separate workers with their own results", async () => {
    const outs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        run("globalThis.n = (globalThis.n ?? 0) + 1;\nexport default (x) => [x, globalThis.n]", {
          input: i,
        }),
      ),
    );
    expect(outs.map((o) => (o.ok ? o.result : o.error))).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
  });

  it("keeps the result check working when the guest replaced JSON and prototypes", async () => {
    const out = await run(`
      JSON.stringify = () => "not json";
      Object.keys = () => [];
      Array.isArray = () => false;
      export default () => ({ list: [1, 2], nested: { n: Infinity } });`);
    expect(out).toMatchObject({
      ok: false,
      error: {
        kind: "result",
        message: "The result.nested.n is Infinity, which JSON cannot represent",
      },
    });
  });

  it("ends a cancelled job's worker and serves the next job from another", async () => {
    await run("export default () => 1");
    const warm = nextWorker();
    const abort = new AbortController();
    const running = run("export default () => { while (true) {} }", {
      timeoutMs: 30_000,
      signal: abort.signal,
    });
    abort.abort();
    expect(await running).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    const next = await onWorker("export default () => 'fine'");
    expect(next.outcome).toMatchObject({ ok: true, result: "fine" });
    expect(idleQuickJsWorkers()).not.toContain(warm);
  });
});

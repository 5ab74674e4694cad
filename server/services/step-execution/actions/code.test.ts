import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { CodeConfig } from "@/lib/workflow/steps";
import { codeHandler } from "./code";
import { failureOf, makeActionContext } from "./testing";

const run = (config: z.input<typeof CodeConfig>) =>
  codeHandler(makeActionContext(CodeConfig, config));

describe("code step (QuickJS)", () => {
  it("returns the default export's JSON result, with input and ctx", async () => {
    const out = await run({
      source:
        "export default function (input, ctx) {\n  return { sum: input.a + input.b, step: ctx.stepId, run: ctx.runId };\n}",
      input: { a: 2, b: 3 },
    });
    expect(out.data).toEqual({ sum: 5, step: "step", run: "run_test" });
  });

  it("supports async functions, helpers and top-level code", async () => {
    const out = await run({
      source: `const double = (x) => x * 2;
export default async function (input) {
  const a = await Promise.resolve(double(input.n));
  const b = await new Promise((resolve) => resolve(a + 1));
  return [a, b, new Date(0)];
}`,
      input: { n: 21 },
    });
    expect(out.data).toEqual([42, 43, "1970-01-01T00:00:00.000Z"]);
  });

  it("maps undefined to null and keeps JSON semantics for undefined properties", async () => {
    expect((await run({ source: "export default function () {}" })).data).toBeNull();
    expect((await run({ source: "export default () => ({ a: undefined, b: 1 })" })).data).toEqual({
      b: 1,
    });
  });

  it("captures console output into meta.logs, capped", async () => {
    const out = await run({
      source: `export default function () {
  console.log("hello", { a: 1 }, [2]);
  console.warn("careful");
  console.error(new TypeError("bad"));
  return 1;
}`,
    });
    expect(out.meta?.logs).toEqual([
      { level: "log", message: 'hello {"a":1} [2]' },
      { level: "warn", message: "careful" },
      { level: "error", message: expect.stringContaining("TypeError: bad") },
    ]);
    const big = await run({
      source: `export default function () { for (let i = 0; i < 5000; i++) console.log("x".repeat(100)); return 0; }`,
    });
    expect(big.meta?.logsTruncated).toBe(true);
    const size = (big.meta?.logs as { message: string }[]).reduce(
      (n, l) => n + l.message.length,
      0,
    );
    expect(size).toBeLessThanOrEqual(64 * 1024);
  });

  it("reports syntax errors with line and column", async () => {
    const f = await failureOf(
      run({ source: "export default function (input) {\n  const x = 1;\n  return x +;\n}" }),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/^Syntax error \(line 3, column \d+\): SyntaxError: /);
    expect(f.details).toMatchObject({ kind: "syntax", line: 3 });
  });

  it("reports runtime errors with line and column, sync and async", async () => {
    const f = await failureOf(
      run({
        source:
          "export default function (input) {\n  const x = 1;\n  return input.missing.deep;\n}",
        input: {},
      }),
    );
    expect(f.message).toMatch(/^Error \(line 3, column \d+\): TypeError: /);
    expect(f.details).toMatchObject({ kind: "runtime", line: 3 });
    const a = await failureOf(
      run({
        source:
          "export default async function () {\n  await null;\n  throw new RangeError('nope');\n}",
      }),
    );
    expect(a.message).toMatch(/^Error \(line 3, column \d+\): RangeError: nope$/);
  });

  it("refuses non-JSON results with a clear error", async () => {
    const cases: Array<[string, RegExp]> = [
      ["export default () => ({ f() {} })", /The result\.f is a function/],
      ["export default () => new Map()", /The result is a Map; return plain objects and arrays/],
      ["export default () => ({ n: NaN })", /The result\.n is NaN/],
      ["export default () => [1, 2n]", /The result\[1\] is a BigInt/],
      ["export default () => { const o = {}; o.self = o; return o; }", /circular reference/],
    ];
    for (const [source, message] of cases) {
      const f = await failureOf(run({ source }));
      expect(f.failureClass).toBe("user");
      expect(f.message).toMatch(message);
    }
  });

  it("refuses results larger than 1 MiB of JSON", async () => {
    const f = await failureOf(
      run({ source: "export default () => 'x'.repeat(2 * 1024 * 1024)", memoryMb: 64 }),
    );
    expect(f.message).toMatch(/larger than 1024 KiB/);
  });

  it("requires a default export function", async () => {
    const f = await failureOf(run({ source: "export default 42" }));
    expect(f.message).toMatch(/must `export default` a function/);
  });

  it("stops an infinite loop at the time limit without blocking the server", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    const f = await failureOf(
      run({ source: "export default function () {\n  while (true) {}\n}", timeoutMs: 500 }),
    );
    clearInterval(timer);
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/ran longer than its 500 ms time limit/);
    expect(Date.now() - started).toBeLessThan(4000);
    // The event loop kept running while the guest spun.
    expect(ticks).toBeGreaterThan(10);
  });

  it("stops a memory bomb at the memory limit", async () => {
    const f = await failureOf(
      run({
        source:
          "export default function () {\n  const a = [];\n  while (true) a.push(new Array(100000).fill(a.length));\n}",
        memoryMb: 16,
        timeoutMs: 60_000,
      }),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/more than its 16 MiB memory limit/);
    // Typed array data is outside QuickJS's own accounting; the capped WASM memory stops it.
    const typed = await failureOf(
      run({
        source:
          "export default function () {\n  const a = [];\n  while (true) a.push(new Uint8Array(65536).fill(1));\n}",
        memoryMb: 16,
        timeoutMs: 60_000,
      }),
    );
    expect(typed.message).toMatch(/more than its 16 MiB memory limit/);
  });

  it("stops runaway recursion", async () => {
    const f = await failureOf(
      run({ source: "function f(n) { return f(n + 1) + 1; }\nexport default () => f(0);" }),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/stack limit/);
  });

  it("has no host access: no process, require, fetch, timers, imports", async () => {
    const out = await run({
      source: `export default function () {
  return [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof XMLHttpRequest, typeof WebAssembly, typeof globalThis.std, typeof globalThis.os];
}`,
    });
    expect(out.data).toEqual(Array(8).fill("undefined"));
    const imp = await failureOf(run({ source: "import fs from 'fs';\nexport default () => fs" }));
    expect(imp.message).toMatch(/could not load module 'fs'/);
    const dyn = await failureOf(
      run({
        source:
          "export default async () => (await import('node:fs')).readFileSync('/etc/passwd', 'utf8')",
      }),
    );
    expect(dyn.message).toMatch(/could not load module/);
    const never = await failureOf(run({ source: "export default () => new Promise(() => {})" }));
    expect(never.message).toMatch(/never settles/);
  });

  it("is cancelled through the abort signal", async () => {
    const ctx = makeActionContext(CodeConfig, {
      source: "export default () => { while (true) {} }",
      timeoutMs: 30_000,
    });
    setTimeout(() => ctx.abort.abort(), 300);
    const f = await failureOf(codeHandler(ctx));
    expect(f.failureClass).toBe("operational");
    expect(f.message).toMatch(/cancelled/);
  });
});

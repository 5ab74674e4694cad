/**
 * The DBOS Transact anchor: the bench workloads on DBOS (pinned devDependency), every step
 * checkpointed with `DBOS.runStep` into DBOS's system database — its own database on the same
 * Postgres server as Sluice's. bench/anchor-compare.ts alternates these with the same workloads
 * on Sluice. DBOS is a process-wide singleton, so one anchor per process.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { runQuickJs } from "../../server/sandbox/quickjs";

/**
 * How a `code` step's module runs on DBOS: `quickjs` in the very sandbox Sluice's `code` step uses
 * (a worker thread + QuickJS, same limits), so both sides do the same work per step; `plain` as
 * ordinary JS in the process, the way a DBOS app would write that step.
 */
export type CodeMode = "quickjs" | "plain";

export interface DbosAnchor {
  /** One workflow of `n` no-op steps, run to completion. */
  noopChain(n: number): Promise<void>;
  /** `m` three-step workflows started at once, all awaited. */
  threeStepBurst(m: number): Promise<void>;
  /** One workflow of `n` steps each running `source` (an `export default function (input)`). */
  codeChain(n: number, source: string, mode: CodeMode): Promise<void>;
  /** One workflow of `n` steps each fetching `url` (a GET answered with JSON). */
  httpChain(n: number, url: string): Promise<void>;
  close(): Promise<void>;
}

const CODE_TIMEOUT_MS = 10_000;
const CODE_MEMORY_BYTES = 64 * 1024 * 1024;

/** `export default function (input) {…}` as a plain function (the `plain` code mode). */
function compilePlain(source: string): (input: unknown) => unknown {
  const body = source.replace(/export\s+default\s+/, "return ");
  return new Function(body)() as (input: unknown) => unknown;
}

export async function startDbosAnchor(systemDatabaseUrl: string): Promise<DbosAnchor> {
  const noopChain = DBOS.registerWorkflow(
    async (n: number) => {
      let last = 0;
      for (let i = 0; i < n; i++) last = await DBOS.runStep(async () => i, { name: `s${i}` });
      return last;
    },
    { name: "noopChain" },
  );
  const threeStep = DBOS.registerWorkflow(
    async () => {
      const a = await DBOS.runStep(async () => 1, { name: "a" });
      const b = await DBOS.runStep(async () => 2, { name: "b" });
      const c = await DBOS.runStep(async () => 3, { name: "c" });
      return a + b + c;
    },
    { name: "threeStep" },
  );
  const codeChain = DBOS.registerWorkflow(
    async (n: number, source: string, mode: CodeMode) => {
      const plain = mode === "plain" ? compilePlain(source) : undefined;
      let last: unknown = null;
      for (let i = 0; i < n; i++) {
        last = await DBOS.runStep(
          async () => {
            const input = { n: i };
            if (plain) return plain(input);
            const out = await runQuickJs({
              source,
              input,
              context: { runId: DBOS.workflowID, stepId: `c${i}`, attempt: 1 },
              timeoutMs: CODE_TIMEOUT_MS,
              memoryBytes: CODE_MEMORY_BYTES,
            });
            if (!out.ok) throw new Error(`${out.error.kind}: ${out.error.message}`);
            return out.result;
          },
          { name: `c${i}` },
        );
      }
      return last;
    },
    { name: "codeChain" },
  );
  const httpChain = DBOS.registerWorkflow(
    async (n: number, url: string) => {
      let last: unknown = null;
      for (let i = 0; i < n; i++) {
        last = await DBOS.runStep(
          async () => {
            // The same request Sluice's http step sends: a GET with an idempotency key.
            const res = await fetch(url, {
              headers: { "idempotency-key": `${DBOS.workflowID}:h${i}:1` },
            });
            if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
            return { status: res.status, data: (await res.json()) as unknown };
          },
          { name: `h${i}` },
        );
      }
      return last;
    },
    { name: "httpChain" },
  );

  DBOS.setConfig({
    name: "sluice-bench-anchor",
    systemDatabaseUrl,
    applicationVersion: "bench",
    logLevel: "error",
  });
  await DBOS.launch();

  return {
    async noopChain(n) {
      await noopChain(n);
    },
    async threeStepBurst(m) {
      const handles = await Promise.all(
        Array.from({ length: m }, () => DBOS.startWorkflow(threeStep)()),
      );
      await Promise.all(handles.map((h) => h.getResult()));
    },
    async codeChain(n, source, mode) {
      await codeChain(n, source, mode);
    },
    async httpChain(n, url) {
      await httpChain(n, url);
    },
    close: () => DBOS.shutdown(),
  };
}

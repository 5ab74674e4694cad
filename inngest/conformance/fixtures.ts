/**
 * What the conformance scenarios share: a counting stub for side effects (a real local HTTP
 * server; `script` steps report to it too, from their sandbox), a workspace that may call it and
 * run scripts with the network, and a normaliser that turns a run's rows into the records the engines must agree on.
 */
import { eq } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import type { WorkspaceFixture } from "@/server/testing/harness";
import type { ConformanceHarness } from "./engines";

export interface StubCall {
  key: string;
  idempotencyKey: string;
  /** Arrival time (ms since the epoch), before any delay. */
  at: number;
}

export interface CountingStub {
  origin: string;
  /** Every call in arrival order. */
  calls: StubCall[];
  server: LocalServer;
  /** Calls per path key (`/count/<key>` → key). */
  count(key: string): number;
  /** Idempotency-Key headers seen for a key, in arrival order. */
  keys(key: string): string[];
  /** Answers the next `n` calls to `key` with `status`. */
  failNext(key: string, n: number, status?: number): void;
  /** How many times script steps reported `name` (POST /effect/<name>; not in `calls`). */
  lines(name: string): number;
  close(): Promise<void>;
}

export async function startCountingStub(
  opts: { delayMs?: (key: string) => number } = {},
): Promise<CountingStub> {
  const failures = new Map<string, { n: number; status: number }>();
  const calls: StubCall[] = [];
  const effects: string[] = [];
  const server = await startHttpServer(async (req, res, body) => {
    if (req.url?.startsWith("/effect/")) {
      effects.push(decodeURIComponent(req.url.slice("/effect/".length)));
      return sendJson(res, 200, {});
    }
    const key = decodeURIComponent((req.url ?? "").split("?")[0]!.replace(/^\/count\//, ""));
    calls.push({
      key,
      idempotencyKey: String(req.headers["idempotency-key"] ?? ""),
      at: Date.now(),
    });
    const delay = opts.delayMs?.(key) ?? 0;
    if (delay) await new Promise((r) => setTimeout(r, delay));
    const f = failures.get(key);
    if (f && f.n > 0) {
      f.n--;
      return sendJson(res, f.status, { error: "injected failure" });
    }
    let got: unknown = null;
    try {
      got = body ? JSON.parse(body) : null;
    } catch {
      got = body;
    }
    return sendJson(res, 200, { key, got });
  });
  const of = (key: string) =>
    server.requests.filter(
      (r) => decodeURIComponent(r.url.split("?")[0]!.replace(/^\/count\//, "")) === key,
    );
  return {
    origin: server.origin,
    calls,
    server,
    count: (key) => of(key).length,
    keys: (key) => of(key).map((r) => String(r.headers["idempotency-key"] ?? "")),
    failNext: (key, n, status = 503) => failures.set(key, { n, status }),
    lines: (name) => effects.filter((l) => l === name).length,
    close: () => server.close(),
  };
}

/**
 * Lets the workspace call the stub (127.0.0.1) and run scripts that reach it (the sandbox has no
 * network otherwise), and raises the run limits.
 */
export async function openWorkspace(e: ConformanceHarness, fx: WorkspaceFixture = e.ws) {
  await updateWorkspacePolicies({
    ctx: fx.ctx("admin"),
    input: {
      scriptStepsEnabled: true,
      scriptNetwork: "allowed",
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  const [row] = await e.db.db
    .select({ settings: workspaces.settings })
    .from(workspaces)
    .where(eq(workspaces.id, fx.workspaceId));
  await e.db.db
    .update(workspaces)
    .set({
      settings: {
        ...((row?.settings as Record<string, unknown>) ?? {}),
        maxActiveRunsPerUser: 500,
        maxActiveRunsPerWorkspace: 500,
      },
    })
    .where(eq(workspaces.id, fx.workspaceId));
}

/** An http step that calls the stub once under `key`. */
export function countStep(id: string, key: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: "http",
    config: { method: "POST", url: `{{ vars.stub }}/count/${key}`, body: { step: id } },
    ...extra,
  };
}

/** A script step that reports `name` to the stub once. */
export function scriptStep(id: string, name: string) {
  return {
    id,
    type: "script",
    config: {
      command: `curl -fsS -X POST "$STUB/effect/${name}" > /dev/null`,
      env: { STUB: "{{ vars.stub }}" },
    },
  };
}

/** A run's rows as the engines must agree on them (order-free where branches run concurrently). */
export async function records(e: ConformanceHarness, runId: string) {
  const steps = await e.steps(runId);
  const events = await e.events(runId);
  return {
    steps: steps
      .map((s) => `${s.path}@${s.attempt}:${s.status}${s.port ? `:${s.port}` : ""}`)
      .sort(),
    events: [...events].sort(),
  };
}

/** Fan-out of `n` side-effecting branches, a join with an http and a script step after it. */
export function fanOutDefinition(name: string, n: number, tag: string) {
  const branches = Array.from({ length: n }, (_, i) => countStep(`b${i}`, `${tag}-b${i}`));
  return {
    schemaVersion: 1,
    name,
    steps: [
      { id: "start", type: "transform", config: { value: { n } } },
      ...branches,
      countStep("join", `${tag}-join`),
      scriptStep("after", `${tag}-after`),
      { id: "done", type: "transform", config: { value: "{{ steps.join.output.data.status }}" } },
    ],
    edges: [
      ...branches.map((b) => ({ from: "start", to: b.id })),
      ...branches.map((b) => ({ from: b.id, to: "join" })),
      { from: "join", to: "after" },
      { from: "after", to: "done" },
    ],
    output: "{{ steps.done.output.data }}",
  };
}

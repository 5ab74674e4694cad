import "server-only";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executorExecutions } from "@/db/schema";
import { hashedSigningKey } from "@/lib/server-only/signing-key";
import type { EngineConfig } from "../context";

/**
 * A run's durable execution (`runs.inngest_run_id`) as its engine reports it. `running` covers
 * queued and scheduled: the engine still owns it. A lookup that cannot tell (engine unreachable,
 * an answer it does not understand) throws instead: the watchdog must never act on a guess.
 */
export type ExecutionStatus =
  | { state: "running" }
  | { state: "ended"; status: string; endedAt: Date | null }
  | { state: "missing" };

export type ExecutionStatusLookup = (executionId: string) => Promise<ExecutionStatus>;

/** How a message names the engine ("the embedded executor", "Inngest at http://…"). */
export function engineLabel(engine: EngineConfig | undefined): string {
  if (!engine || engine.kind === "embedded") return "the embedded executor";
  return engine.isCloud ? "Inngest Cloud" : `Inngest at ${engine.baseUrl}`;
}

/**
 * Where the engine's dashboard shows an execution: the configured template, else the Dev
 * Server / self-hosted UI's run page (`/run?runID=`, as the v1.43 UI links it). None on the
 * embedded executor or on Inngest Cloud without a template (its URL needs the environment's slug).
 */
export function executionUrl(
  engine: EngineConfig | undefined,
  executionId: string | null,
): string | null {
  if (!executionId || !engine || engine.kind === "embedded") return null;
  const id = encodeURIComponent(executionId);
  if (engine.dashboardUrl) return engine.dashboardUrl.replaceAll("{runId}", id);
  if (engine.isCloud) return null;
  return `${engine.baseUrl.replace(/\/+$/, "")}/run?runID=${id}`;
}

/** The lookup for the configured engine. */
export function executionStatusLookup(
  db: Db,
  engine: EngineConfig | undefined,
): ExecutionStatusLookup {
  return !engine || engine.kind === "embedded"
    ? embeddedExecutionStatus(db)
    : inngestExecutionStatus({ baseUrl: engine.baseUrl, signingKey: engine.signingKey });
}

/** The embedded executor keeps its runs in the same database (`executor_runs`). */
export function embeddedExecutionStatus(db: Db): ExecutionStatusLookup {
  return async (executionId) => {
    const [row] = await db
      .select({ status: executorExecutions.status, endedAt: executorExecutions.endedAt })
      .from(executorExecutions)
      .where(eq(executorExecutions.id, executionId));
    if (!row) return { state: "missing" };
    switch (row.status) {
      case "queued":
      case "running":
        return { state: "running" };
      case "completed":
      case "failed":
      case "cancelled":
        return { state: "ended", status: row.status, endedAt: row.endedAt };
    }
  };
}

// GET /v1/runs/{id}: `data.status` is the enum's name (pkg/enums/run_status.go in inngest v1.43).
const INNGEST_ALIVE = new Set(["Running", "Scheduled"]);
const INNGEST_ENDED = new Set(["Completed", "Failed", "Cancelled", "Overflowed", "Skipped"]);

/**
 * A real Inngest server's REST API. `GET /v1/runs/{id}` gives the status, but an unknown id gets
 * the same answer as a database error there (HTTP 200, body `{"error": "Unable to load function
 * run…", "status": 500}` in v1.43): absence is confirmed by `GET /v2/runs/{id}` answering 404
 * with the error code `not_found`. A 404 without that code (a wrong base URL) is not absence.
 */
export function inngestExecutionStatus(o: {
  baseUrl: string;
  signingKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): ExecutionStatusLookup {
  const doFetch = o.fetch ?? fetch;
  const origin = o.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.signingKey) headers.authorization = `Bearer ${hashedSigningKey(o.signingKey)}`;
  const get = async (path: string) => {
    const res = await doFetch(`${origin}${path}`, {
      headers,
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, body, text };
  };
  return async (executionId) => {
    const id = encodeURIComponent(executionId);
    const v1 = await get(`/v1/runs/${id}`);
    const data = (v1.body as { data?: { status?: unknown; ended_at?: unknown } } | undefined)?.data;
    if (v1.status === 200 && data && typeof data.status === "string") {
      if (INNGEST_ALIVE.has(data.status)) return { state: "running" };
      if (INNGEST_ENDED.has(data.status)) {
        const endedAt = typeof data.ended_at === "string" ? new Date(data.ended_at) : null;
        return {
          state: "ended",
          status: data.status.toLowerCase(),
          endedAt: endedAt && !Number.isNaN(endedAt.getTime()) ? endedAt : null,
        };
      }
      throw new Error(`Inngest reported execution ${executionId} as "${data.status}"`);
    }
    if (v1.status === 401 || v1.status === 403)
      throw new Error(`Inngest refused the signing key (HTTP ${v1.status}) for /v1/runs`);
    const v2 = await get(`/v2/runs/${id}`);
    const codes = (v2.body as { errors?: { code?: unknown }[] } | undefined)?.errors;
    if (v2.status === 404 && codes?.some((e) => e.code === "not_found"))
      return { state: "missing" };
    const said = (v1.body as { error?: unknown } | undefined)?.error;
    throw new Error(
      `Inngest could not tell execution ${executionId}'s status: /v1/runs answered HTTP ${v1.status}` +
        (typeof said === "string" ? ` (${said})` : ` ${v1.text.slice(0, 120)}`) +
        `, /v2/runs HTTP ${v2.status}`,
    );
  };
}

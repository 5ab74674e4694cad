import "server-only";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import type { PlanId } from "@/lib/quotas/plans";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { ForbiddenError, UnauthorizedError } from "../errors";
import type { Keys } from "../keys";
import type { ScriptSandboxConfig } from "../sandbox/bwrap";

/** Who is acting. Tokens act with their own role, capped by their creator's current role. */
export type Actor =
  | { type: "anonymous" }
  | {
      type: "user";
      userId: string;
      /** The browser session (user_sessions row) the request came with; absent in tests and CLI. */
      sessionId?: string;
    }
  | { type: "token"; tokenId: string; userId: string }
  | { type: "system"; name: string };

/**
 * The durable engine runs execute on (SLUICE_EXECUTOR), as the watchdog and the run page need it:
 * where to ask about an execution and where its dashboard shows it.
 */
export type EngineConfig =
  | { kind: "embedded" }
  | {
      kind: "inngest";
      /** The Inngest server's origin (INNGEST_BASE_URL, the Dev Server's, or Inngest Cloud's API). */
      baseUrl: string;
      /** Signed mode (INNGEST_SIGNING_KEY); absent in dev mode, where the API needs no auth. */
      signingKey?: string;
      /** A run's page: a template with `{runId}` (absent: `<baseUrl>/run?runID=…`, unless Cloud). */
      dashboardUrl?: string;
      /** Inngest Cloud: its API origin has no dashboard, so only `dashboardUrl` gives a link. */
      isCloud?: boolean;
    };

export interface ServiceConfig {
  openSignup: boolean;
  publicUrl: string;
  maxActiveRunsPerUser: number;
  maxActiveRunsPerWorkspace: number;
  /** Schedules may not fire more often than this (default DEFAULT_MIN_INTERVAL_SECONDS = 60). */
  scheduleMinIntervalSeconds?: number;
  /** First lock of the auth throttle (SLUICE_AUTH_LOCK_BASE_SECONDS; absent = the policy's 15 s). */
  authLockBaseSeconds?: number;
  /** The quota plan of workspaces without one (SLUICE_DEFAULT_PLAN; absent = enterprise, unlimited). */
  defaultPlan?: PlanId;
  /** Engine version new runs get (run-state/run-plan.ts ENGINE_VERSION; absent: the latest). */
  engineVersion?: number;
  /** Where the per-workspace bare caches of repository context live (default: a temp folder). */
  repositoryCacheDir?: string;
  /** How script steps are isolated (SLUICE_SCRIPT_SANDBOX; absent: bwrap, nothing extra hidden). */
  scriptSandbox?: ScriptSandboxConfig;
  /** The durable engine (absent: the embedded executor, as in tests). */
  engine?: EngineConfig;
}

/** Where a request came from (server/http/client-address.ts); written on its audit rows. */
export interface RequestClient {
  /** The client's IP address, or null when it cannot be told (no request, malformed header). */
  address: string | null;
  userAgent: string | null;
}

export interface ServiceContext {
  db: Db;
  actor: Actor;
  /** Absent outside a request (engine, maintenance jobs, CLI). */
  client?: RequestClient;
  /** The workspace the request acts in, with the actor's effective role there. */
  workspace?: { id: string; role: Role };
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
  now(): Date;
}

/** The acting user's id, or UnauthorizedError. Token actors resolve to the token's creator. */
export function requireUserId(ctx: ServiceContext): string {
  if (ctx.actor.type === "user" || ctx.actor.type === "token") return ctx.actor.userId;
  throw new UnauthorizedError();
}

/** The current workspace if the actor holds at least `minimum` there; otherwise Forbidden. */
export function requireRole(ctx: ServiceContext, minimum: Role): { id: string; role: Role } {
  if (ctx.actor.type === "anonymous") throw new UnauthorizedError();
  const ws = ctx.workspace;
  if (!ws) throw new ForbiddenError("Select a workspace first");
  if (!hasRole(ws.role, minimum)) {
    throw new ForbiddenError(`This needs the ${minimum} role or higher; you are ${ws.role}`);
  }
  return ws;
}

/** Audit actor columns for the current actor. */
export function auditActor(ctx: ServiceContext): { actorType: string; actorId: string | null } {
  switch (ctx.actor.type) {
    case "user":
      return { actorType: "user", actorId: ctx.actor.userId };
    case "token":
      return { actorType: "token", actorId: ctx.actor.tokenId };
    case "system":
      return { actorType: "system", actorId: ctx.actor.name };
    case "anonymous":
      return { actorType: "anonymous", actorId: null };
  }
}

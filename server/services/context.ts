import "server-only";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/log";
import type { PlanId } from "@/lib/quotas/plans";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { ForbiddenError, UnauthorizedError } from "../errors";
import type { Keys } from "../keys";

/** Who is acting. Tokens act with their own role, capped by their creator's current role. */
export type Actor =
  | { type: "anonymous" }
  | { type: "user"; userId: string }
  | { type: "token"; tokenId: string; userId: string }
  | { type: "system"; name: string };

export interface ServiceConfig {
  openSignup: boolean;
  publicUrl: string;
  maxActiveRunsPerUser: number;
  maxActiveRunsPerWorkspace: number;
  /** Schedules may not fire more often than this (default DEFAULT_MIN_INTERVAL_SECONDS = 60). */
  scheduleMinIntervalSeconds?: number;
  /** The quota plan of workspaces without one (SLUICE_DEFAULT_PLAN; absent = enterprise, unlimited). */
  defaultPlan?: PlanId;
  /** Where the per-workspace bare caches of repository context live (default: a temp folder). */
  repositoryCacheDir?: string;
}

export interface ServiceContext {
  db: Db;
  actor: Actor;
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

import "server-only";
import { eq, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { tasks, users } from "@/db/schema";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { requireUserId, type ServiceContext } from "../context";

export interface TaskAssignee {
  users?: string[];
  roles?: string[];
  tokens?: string[];
}

/** Who is asking, as task assignment sees them: the user (a token acts for its creator), the role, the token. */
export interface TaskActor {
  userId: string;
  email: string;
  role: Role;
  tokenId: string | null;
}

export async function taskActor(
  db: Queryable,
  ctx: ServiceContext,
  ws: { role: Role },
): Promise<TaskActor> {
  const userId = requireUserId(ctx);
  const [me] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return {
    userId,
    email: me?.email ?? "",
    role: ws.role,
    tokenId: ctx.actor.type === "token" ? ctx.actor.tokenId : null,
  };
}

/** Assigned to the actor: by user id or email (case-insensitive), by exact role, or by API token id. */
export function isAssignee(assignee: TaskAssignee, actor: TaskActor): boolean {
  const listed = assignee.users ?? [];
  return (
    listed.includes(actor.userId.toLowerCase()) ||
    (actor.email !== "" && listed.includes(actor.email.toLowerCase())) ||
    (assignee.roles ?? []).includes(actor.role) ||
    (actor.tokenId !== null && (assignee.tokens ?? []).includes(actor.tokenId))
  );
}

/**
 * Who may complete or fail a task: its assignees, and workspace admins (and owners), who can
 * unblock a run whose assignee is gone — they could cancel the run anyway. Null = allowed.
 */
export function taskRefusal(assignee: TaskAssignee, actor: TaskActor): string | null {
  if (isAssignee(assignee, actor) || hasRole(actor.role, "admin")) return null;
  const who = [
    assignee.roles?.length ? `roles ${assignee.roles.join(", ")}` : "",
    assignee.users?.length ? "listed users" : "",
    assignee.tokens?.length ? "listed API tokens" : "",
  ]
    .filter(Boolean)
    .join(" or ");
  return `This task is assigned to ${who}; only they (or a workspace admin) can complete or fail it`;
}

/** The SQL twin of `isAssignee`, for listing "my" tasks (users are stored lower-cased). */
export function assignedTo(actor: TaskActor): SQL {
  const has = (value: Record<string, string[]>) =>
    sql`${tasks.assignee} @> ${JSON.stringify(value)}::jsonb`;
  const conditions = [
    has({ users: [actor.userId.toLowerCase()] }),
    has({ roles: [actor.role] }),
    ...(actor.email ? [has({ users: [actor.email.toLowerCase()] })] : []),
    ...(actor.tokenId ? [has({ tokens: [actor.tokenId] })] : []),
  ];
  return or(...conditions)!;
}

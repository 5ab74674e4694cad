import "server-only";
import { and, inArray } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships, users } from "@/db/schema";
import { PreconditionFailedError } from "../../errors";

/**
 * A trigger's owner (`triggers.created_by`) is the user its own runs — webhook deliveries,
 * schedule ticks, event matches — count against (runs.accountable_user_id: the per-user admission
 * limit, approvals' allowInitiator). An owner who left the workspace or whose account was deleted
 * cannot be held to anything, so the trigger starts no runs — each refusal is recorded with the
 * reason — until an editor takes it over (takeOverTrigger). Like an API token, whose creator's
 * removal revokes it, a departed person's automation stops rather than running on as nobody.
 */
export type OwnerStatus = "member" | "removed" | "deleted";

interface OwnedTrigger {
  id: string;
  workspaceId: string;
  createdBy: string | null;
}

/** Each trigger's owner status, with one query for any number of triggers (any workspaces). */
export async function ownerStatuses(
  db: Queryable,
  rows: OwnedTrigger[],
): Promise<Map<string, OwnerStatus>> {
  const owners = [...new Set(rows.flatMap((r) => (r.createdBy ? [r.createdBy] : [])))];
  const found = owners.length
    ? await db
        .select({ workspaceId: memberships.workspaceId, userId: memberships.userId })
        .from(memberships)
        .where(
          and(
            inArray(memberships.userId, owners),
            inArray(memberships.workspaceId, [...new Set(rows.map((r) => r.workspaceId))]),
          ),
        )
    : [];
  const member = new Set(found.map((m) => `${m.workspaceId}\u0000${m.userId}`));
  return new Map(
    rows.map((r) => [
      r.id,
      !r.createdBy
        ? "deleted"
        : member.has(`${r.workspaceId}\u0000${r.createdBy}`)
          ? "member"
          : "removed",
    ]),
  );
}

/** Why a trigger whose owner is gone starts no run (recorded on the delivery or tick). */
export function ownerGoneReason(triggerName: string, status: Exclude<OwnerStatus, "member">) {
  const why =
    status === "deleted"
      ? "the account of the person who owned it was deleted"
      : "its owner is no longer a member of this workspace";
  return `Trigger "${triggerName}" has no accountable owner: ${why}. It starts no runs until an editor takes it over (Take over on the trigger's page)`;
}

/**
 * The user a trigger's run counts against, or PreconditionFailedError with the reason. Call in
 * the transaction that creates the run.
 */
export async function triggerOwner(
  db: Queryable,
  trigger: OwnedTrigger & { name: string },
): Promise<string> {
  const status = (await ownerStatuses(db, [trigger])).get(trigger.id)!;
  if (status !== "member") throw new PreconditionFailedError(ownerGoneReason(trigger.name, status));
  return trigger.createdBy!;
}

/** What the trigger pages show about the owner: who, and whether they still count. */
export interface OwnerView {
  userId: string | null;
  name: string | null;
  email: string | null;
  status: OwnerStatus;
  /** Set when runs are refused: the reason the deliveries and ticks record. */
  problem: string | null;
}

export async function ownerViews(
  db: Queryable,
  rows: (OwnedTrigger & { name: string })[],
): Promise<Map<string, OwnerView>> {
  const statuses = await ownerStatuses(db, rows);
  const ids = [...new Set(rows.flatMap((r) => (r.createdBy ? [r.createdBy] : [])))];
  const people = ids.length
    ? await db
        .select({ id: users.id, name: users.name, email: users.email })
        .from(users)
        .where(inArray(users.id, ids))
    : [];
  const byId = new Map(people.map((p) => [p.id, p]));
  return new Map(
    rows.map((r) => {
      const status = statuses.get(r.id)!;
      const person = r.createdBy ? byId.get(r.createdBy) : undefined;
      return [
        r.id,
        {
          userId: r.createdBy,
          name: person?.name ?? null,
          email: person?.email ?? null,
          status,
          problem: status === "member" ? null : ownerGoneReason(r.name, status),
        },
      ];
    }),
  );
}

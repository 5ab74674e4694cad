import "server-only";
import { hasRole, type Role } from "@/lib/schemas/roles";

export interface ApproverRules {
  approvers: { roles?: string[]; users?: string[] };
  allowInitiator: boolean;
  initiatorUserId: string | null;
}

/**
 * The initiator rule: the person who started a run may not decide its gates unless the gate sets
 * `allowInitiator` (four eyes by default).
 */
export function initiatorMayNotDecide(rules: ApproverRules, userId: string): boolean {
  return !rules.allowInitiator && rules.initiatorUserId === userId;
}

/**
 * Who may decide a gate: at least the approver role; when the gate lists roles and/or users, the
 * actor must match one of them (users by id or email); the run's initiator is refused unless
 * `allowInitiator`. Returns the reason for a refusal, or null.
 */
export function approverRefusal(
  rules: ApproverRules,
  actor: { userId: string; email: string; role: Role },
): string | null {
  if (!hasRole(actor.role, "approver"))
    return `Deciding approvals needs the approver role or higher; you are ${actor.role}`;
  if (initiatorMayNotDecide(rules, actor.userId)) {
    return "You started this run, and this gate does not let the initiator approve their own run";
  }
  const roles = rules.approvers.roles ?? [];
  const users = (rules.approvers.users ?? []).map((u) => u.toLowerCase());
  if (roles.length === 0 && users.length === 0) return null;
  if (
    roles.includes(actor.role) ||
    users.includes(actor.userId.toLowerCase()) ||
    users.includes(actor.email.toLowerCase())
  )
    return null;
  const who = [roles.length ? `roles ${roles.join(", ")}` : "", users.length ? `listed users` : ""]
    .filter(Boolean)
    .join(" or ");
  return `This gate can be decided only by ${who}`;
}

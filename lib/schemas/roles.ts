import { z } from "zod";

/**
 * Workspace roles, weakest first. Roles are ranked: a procedure that needs `editor` admits
 * editors, admins and owners. Approvers rank above viewers so they can decide gates and
 * proposals, and below editors, who can also approve unless a gate lists specific approvers.
 */
export const ROLES = ["viewer", "approver", "editor", "admin", "owner"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function hasRole(actual: Role, minimum: Role): boolean {
  return roleRank(actual) >= roleRank(minimum);
}

export const ROLE_LABELS: Record<Role, string> = {
  viewer: "Viewer — reads everything",
  approver: "Approver — decides approval gates and proposals",
  editor: "Editor — builds, publishes and runs workflows",
  admin: "Admin — manages members, secrets, tokens and policies",
  owner: "Owner — everything",
};

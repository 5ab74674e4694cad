import { z } from "zod";
import { Email } from "./auth";
import { Role } from "./roles";

export const WorkspaceName = z
  .string()
  .trim()
  .min(1, "Enter a workspace name")
  .max(80, "Name is too long");

export const CreateWorkspaceInput = z.object({ name: WorkspaceName });
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;

export const RenameWorkspaceInput = z.object({ name: WorkspaceName });
export type RenameWorkspaceInput = z.infer<typeof RenameWorkspaceInput>;

export const SwitchWorkspaceInput = z.object({ workspaceId: z.string().min(1).max(64) });
export type SwitchWorkspaceInput = z.infer<typeof SwitchWorkspaceInput>;

export const InviteMemberInput = z.object({ email: Email, role: Role });
export type InviteMemberInput = z.infer<typeof InviteMemberInput>;

export const ChangeMemberRoleInput = z.object({ userId: z.string().min(1).max(64), role: Role });
export type ChangeMemberRoleInput = z.infer<typeof ChangeMemberRoleInput>;

export const RemoveMemberInput = z.object({ userId: z.string().min(1).max(64) });
export type RemoveMemberInput = z.infer<typeof RemoveMemberInput>;

export const InvitationIdInput = z.object({ invitationId: z.string().min(1).max(64) });
export type InvitationIdInput = z.infer<typeof InvitationIdInput>;

export const InvitationTokenInput = z.object({ token: z.string().min(10).max(200) });
export type InvitationTokenInput = z.infer<typeof InvitationTokenInput>;

/** Per-workspace limits and policies (stored in workspaces.settings). */
export const WorkspaceSettings = z.object({
  maxActiveRunsPerUser: z.number().int().min(1).max(1000).optional(),
  maxActiveRunsPerWorkspace: z.number().int().min(1).max(10000).optional(),
  /** Lets a proposer approve their own change proposal. */
  allowSelfApproval: z.boolean().optional(),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

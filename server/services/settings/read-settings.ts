import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workspaces } from "@/db/schema";
import {
  DEFAULT_WORKSPACE_POLICIES,
  LlmIntegration,
  McpServerIntegration,
  SmtpIntegration,
  WorkspacePolicies,
  type WorkspaceSettings,
} from "@/lib/schemas/workspace";
import { isStepType } from "@/lib/workflow/steps";
import { isApprovalTarget } from "@/lib/workflow/required-approvals";
import { NotFoundError } from "../../errors";

export interface ParsedWorkspaceSettings {
  policies: WorkspacePolicies;
  llm: LlmIntegration | null;
  smtp: SmtpIntegration | null;
  mcpServers: McpServerIntegration[];
}

/**
 * Reads policies and integrations out of the stored settings object. Each field is parsed on its
 * own, so one malformed field (written by an older version, or by hand) falls back to its default
 * instead of hiding every other setting. Defaults are the restrictive choice (scripts off, no
 * private hosts).
 */
export function parseWorkspaceSettings(raw: unknown): ParsedWorkspaceSettings {
  const obj = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const shape = WorkspacePolicies.shape;
  const field = <T>(
    schema: { safeParse(v: unknown): { success: boolean; data?: T } },
    v: unknown,
    fallback: T,
  ): T => {
    const r = schema.safeParse(v);
    return r.success ? (r.data as T) : fallback;
  };
  return {
    policies: {
      scriptStepsEnabled: field(
        shape.scriptStepsEnabled,
        obj.scriptStepsEnabled,
        DEFAULT_WORKSPACE_POLICIES.scriptStepsEnabled,
      ),
      // Fail closed: anything but "allowed" keeps scripts off the network.
      scriptNetwork: obj.scriptNetwork === "allowed" ? "allowed" : "none",
      allowedPrivateHosts: field(
        shape.allowedPrivateHosts,
        obj.allowedPrivateHosts,
        DEFAULT_WORKSPACE_POLICIES.allowedPrivateHosts,
      ),
      // Fail closed: a malformed list keeps every entry that still names a step type.
      forbiddenStepTypes: Array.isArray(obj.forbiddenStepTypes)
        ? [...new Set(obj.forbiddenStepTypes.filter(isStepType))]
        : DEFAULT_WORKSPACE_POLICIES.forbiddenStepTypes,
      // Fail closed here too: an unknown entry is dropped, the others still apply.
      requiredApprovals: Array.isArray(obj.requiredApprovals)
        ? [...new Set(obj.requiredApprovals.filter(isApprovalTarget))]
        : DEFAULT_WORKSPACE_POLICIES.requiredApprovals,
      allowSelfApproval: obj.allowSelfApproval === true,
      proposalDryRunRuns: field(
        shape.proposalDryRunRuns,
        obj.proposalDryRunRuns,
        DEFAULT_WORKSPACE_POLICIES.proposalDryRunRuns,
      ),
      requireVerifiedToApply: obj.requireVerifiedToApply === true,
    },
    llm: obj.llm === undefined ? null : field<LlmIntegration | null>(LlmIntegration, obj.llm, null),
    smtp:
      obj.smtp === undefined
        ? null
        : field<SmtpIntegration | null>(SmtpIntegration, obj.smtp, null),
    // Per entry, like the fields above: one malformed server does not hide the others.
    mcpServers: Array.isArray(obj.mcpServers)
      ? obj.mcpServers.flatMap((s) => {
          const r = McpServerIntegration.safeParse(s);
          return r.success ? [r.data] : [];
        })
      : [],
  };
}

/** The raw settings object of a workspace (optionally locking the row for an update). */
export async function readRawSettings(
  db: Queryable,
  workspaceId: string,
  forUpdate = false,
): Promise<Record<string, unknown>> {
  const query = db
    .select({ settings: workspaces.settings })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row) throw new NotFoundError("Workspace", workspaceId);
  return row.settings ?? {};
}

/**
 * Replaces some top-level settings keys (null removes a key) and keeps every other key as stored,
 * so features that own other keys are never clobbered. Call inside a transaction after
 * readRawSettings(…, true).
 */
export async function writeSettingsKeys(
  db: Queryable,
  workspaceId: string,
  current: Record<string, unknown>,
  changes: { [K in keyof WorkspaceSettings]?: WorkspaceSettings[K] | null },
): Promise<Record<string, unknown>> {
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined) delete next[k];
    else next[k] = v;
  }
  await db.update(workspaces).set({ settings: next }).where(eq(workspaces.id, workspaceId));
  return next;
}

/** Integrations that reference a secret by name ("llm", "smtp", "mcp:<server>"). */
export function integrationsUsingSecret(settings: ParsedWorkspaceSettings, name: string): string[] {
  const used: string[] = [];
  if (settings.llm?.apiKeySecret === name) used.push("llm");
  if (settings.smtp?.passwordSecret === name) used.push("smtp");
  for (const server of settings.mcpServers)
    if (server.apiKeySecret === name) used.push(`mcp:${server.name}`);
  return used;
}

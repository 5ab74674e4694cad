import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workspaces } from "@/db/schema";
import {
  canonicalJson,
  hashNormalizedDefinition,
  validateDefinition,
  type ValidateOptions,
  type ValidationIssue,
  type WorkflowDefinition,
} from "@/lib/workflow";
import { ValidationError } from "../../errors";
import { loadMcpCatalog } from "../settings/load-mcp-catalog";
import { loadWorkspacePolicy } from "../settings/load-workspace-policy";

/** The workspace's forbidden step types (Settings → Policies), applied on publish and apply. */
export async function workspaceForbiddenStepTypes(
  db: Queryable,
  workspaceId: string,
): Promise<string[]> {
  const [ws] = await db
    .select({ settings: workspaces.settings })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  const list = (ws?.settings as { forbiddenStepTypes?: unknown } | undefined)?.forbiddenStepTypes;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : [];
}

/**
 * Everything validation checks against the workspace: its policy (forbidden step types, required
 * approvals) and its MCP servers. Publish, import, sync, inline runs and proposals all compile
 * through here, so none of them can skip a policy.
 */
export async function workspaceValidateOptions(
  db: Queryable,
  workspaceId: string,
): Promise<ValidateOptions> {
  const policy = await loadWorkspacePolicy(db, workspaceId);
  return {
    forbiddenStepTypes: policy.forbiddenStepTypes,
    requiredApprovals: policy.requiredApprovals,
    mcpServers: await loadMcpCatalog(db, workspaceId),
  };
}

export interface CompiledDefinition {
  definition: WorkflowDefinition;
  /** Normalized JSON stored in definition_contents (defaults explicit, layout excluded). */
  normalized: Record<string, unknown>;
  hash: string;
  warnings: ValidationIssue[];
}

/** Validates with the workspace policy and hashes; refuses with every issue at once. */
export async function compileDefinition(
  db: Queryable,
  workspaceId: string,
  input: unknown,
  what = "The definition",
  extra: Pick<ValidateOptions, "inline"> = {},
): Promise<CompiledDefinition> {
  const result = validateDefinition(input, {
    ...(await workspaceValidateOptions(db, workspaceId)),
    ...extra,
  });
  const errors = result.issues.filter((i) => i.severity === "error");
  if (!result.ok || !result.definition) {
    const first = errors[0];
    throw new ValidationError(
      `${what} has ${errors.length} problem${errors.length === 1 ? "" : "s"}${first ? `: ${first.message}` : ""}`,
      errors.map((i) => ({ ...i, path: i.path })),
    );
  }
  const normalized = JSON.parse(canonicalJson(result.definition)) as Record<string, unknown>;
  return {
    definition: result.definition,
    normalized,
    hash: hashNormalizedDefinition(result.definition),
    warnings: result.issues.filter((i) => i.severity === "warning"),
  };
}

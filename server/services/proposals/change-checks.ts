import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { definitionContents, workflowVersions } from "@/db/schema";
import { validateDefinition } from "@/lib/workflow";
import { assessChange } from "@/lib/workflow/proposal-risk";
import {
  outboundDomains,
  type ChangeAssessment as RiskAssessment,
} from "@/lib/workflow/proposal-risk-change";
import { loadWorkspacePolicy } from "../settings/load-workspace-policy";
import { compileDefinition, type CompiledDefinition } from "../workflows/definition-policy";
import { ProposalError } from "./errors";

export interface ChangeAssessment extends RiskAssessment {
  compiled: CompiledDefinition;
}

/** Every outbound host any earlier version of the workflow reached: new hosts raise the risk. */
async function knownDomainsOf(db: Queryable, workspaceId: string, workflowId: string) {
  const rows = await db
    .selectDistinct({ definition: definitionContents.definition })
    .from(workflowVersions)
    .innerJoin(
      definitionContents,
      and(
        eq(definitionContents.workspaceId, workflowVersions.workspaceId),
        eq(definitionContents.hash, workflowVersions.hash),
      ),
    )
    .where(
      and(
        eq(workflowVersions.workspaceId, workspaceId),
        eq(workflowVersions.workflowId, workflowId),
      ),
    );
  const hosts = new Set<string>();
  for (const r of rows) for (const h of outboundDomains(r.definition).hosts) hosts.add(h);
  return [...hosts].sort();
}

/**
 * The checks a change passes on creation and again on apply (SPEC §8): schema + compile with the
 * workspace's forbidden step types (refused as a ValidationError listing every issue), then the
 * change policy and risk. A blocking verdict refuses with POLICY_VIOLATION naming each one.
 */
export async function checkChange(
  db: Queryable,
  args: {
    workspaceId: string;
    workflowId: string;
    base: Record<string, unknown>;
    proposed: unknown;
    what: string;
  },
): Promise<ChangeAssessment> {
  // Schema problems first (every issue at once); workspace-policy problems then surface as
  // POLICY_VIOLATION verdicts rather than as bare validation issues.
  if (!validateDefinition(args.proposed).ok)
    await compileDefinition(db, args.workspaceId, args.proposed, args.what);
  const policies = await loadWorkspacePolicy(db, args.workspaceId);
  const assessed = assessChange({
    base: args.base,
    proposed: args.proposed,
    knownDomains: await knownDomainsOf(db, args.workspaceId, args.workflowId),
    policy: {
      forbiddenStepTypes: policies.forbiddenStepTypes,
      scriptStepsEnabled: policies.scriptStepsEnabled,
      requiredApprovals: policies.requiredApprovals,
    },
  });
  const verdicts = assessed.verdicts;
  const blocking = verdicts.filter((v) => v.blocking && !v.ok);
  if (blocking.length) {
    throw new ProposalError(
      "POLICY_VIOLATION",
      `${args.what} breaks ${blocking.length === 1 ? "a workspace policy" : `${blocking.length} workspace policies`}: ${blocking.map((v) => v.message).join("; ")}`,
      {
        verdicts,
        issues: blocking.map((v) => ({
          path: [],
          code: "POLICY_VIOLATION",
          policy: v.policy,
          stepIds: v.stepIds ?? [],
          message: v.message,
        })),
      },
    );
  }
  const compiled = await compileDefinition(db, args.workspaceId, args.proposed, args.what);
  return { ...assessed, compiled };
}

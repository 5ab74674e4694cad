import "server-only";
import type { Queryable } from "@/db/client";
import type { proposals } from "@/db/schema";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { diffDefinitions } from "@/lib/workflow/diff";
import type { DryRunReport, DryRunRunReport } from "@/lib/workflow/dry-run-types";
import { computeVerification, type Verification } from "@/lib/workflow/verification";
import { ForbiddenError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import type { ServiceContext } from "../context";
import { loadWorkspacePolicy } from "../settings/load-workspace-policy";
import { ProposalError } from "./errors";

/** The verification level of a proposal row, from its stored evidence (issue #29 item 3). */
export function proposalVerification(
  p: typeof proposals.$inferSelect,
  base: unknown,
  proposed: unknown,
): Verification {
  return computeVerification({
    diff: diffDefinitions(base, proposed),
    dryRun: {
      status: p.dryRunStatus,
      error: p.dryRunError,
      report: (p.dryRunReport as DryRunReport | null) ?? null,
    },
    shadowRuns: p.shadowRuns as unknown as DryRunRunReport[],
  });
}

/**
 * Apply's verification gate, in the apply transaction: when the workspace requires `verified`, a
 * proposal that is not is refused (NOT_VERIFIED, with the reasons) unless an admin gives a
 * written reason, which is audited in the same transaction.
 */
export async function enforceVerification(
  tx: Queryable,
  ctx: ServiceContext,
  args: {
    workspace: { id: string; role: Role };
    proposal: typeof proposals.$inferSelect;
    base: unknown;
    proposed: unknown;
    overrideReason?: string;
  },
): Promise<void> {
  const { requireVerifiedToApply } = await loadWorkspacePolicy(tx, args.workspace.id);
  if (!requireVerifiedToApply) return;
  const v = proposalVerification(args.proposal, args.base, args.proposed);
  if (v.level === "verified") return;
  if (!args.overrideReason)
    throw new ProposalError(
      "NOT_VERIFIED",
      `This workspace applies only verified proposals, and this one is ${v.level}: ${v.reasons.join("; ")}. An admin may apply it with a written reason (overrideReason).`,
      { verification: v },
    );
  if (!hasRole(args.workspace.role, "admin"))
    throw new ForbiddenError("Only an admin may apply a proposal that is not verified");
  await recordAudit(tx, ctx, {
    workspaceId: args.workspace.id,
    action: "proposal.verification_overridden",
    targetType: "proposal",
    targetId: args.proposal.id,
    data: { level: v.level, reasons: v.reasons, reason: args.overrideReason },
  });
}

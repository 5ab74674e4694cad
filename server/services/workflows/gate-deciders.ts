import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { memberships, users } from "@/db/schema";
import type { Role } from "@/lib/schemas/roles";
import {
  forEachStep,
  makeIssue,
  type ValidationIssue,
  type WorkflowDefinition,
} from "@/lib/workflow";
import { approverRefusal, type ApproverRules } from "../approvals/approval-rules";

/**
 * Publish-time warnings for approval gates that only the likely initiator (the publisher: people
 * usually run what they publish) could decide: the initiator may not decide their own run unless
 * the gate sets `allowInitiator`, so such runs would wait until the gate times out. Uses the same
 * rule as deciding (approverRefusal) over the workspace's members.
 */
export async function gatesOnlyInitiatorCanDecide(
  db: Queryable,
  workspaceId: string,
  definition: WorkflowDefinition,
  likelyInitiatorId: string | null,
): Promise<ValidationIssue[]> {
  const gates: Array<{ id: string; path: Array<string | number>; config: GateConfig }> = [];
  forEachStep(definition, (step, path) => {
    const config = step.config as GateConfig | undefined;
    if (step.type === "approval" && config && !config.allowInitiator)
      gates.push({ id: String(step.id), path, config });
  });
  if (!gates.length || !likelyInitiatorId) return [];
  const members = await db
    .select({ userId: memberships.userId, role: memberships.role, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId));
  const issues: ValidationIssue[] = [];
  for (const gate of gates) {
    const rules: ApproverRules = {
      approvers: gate.config.approvers ?? {},
      allowInitiator: false,
      initiatorUserId: likelyInitiatorId,
    };
    const others = members.filter(
      (m) =>
        approverRefusal(rules, { userId: m.userId, email: m.email, role: m.role as Role }) === null,
    ).length;
    const quorum = gate.config.quorum ?? 1;
    if (others >= quorum) continue;
    const who =
      others === 0
        ? "no workspace member other than you can decide it"
        : `only ${others} member${others === 1 ? "" : "s"} other than you can decide it and it needs ${quorum} approvals`;
    issues.push(
      makeIssue(
        "NO_OTHER_APPROVER",
        `Step "${gate.id}": ${who}, and the person who starts a run may not decide their own run — runs you start would wait until the gate times out. Invite an approver, list another one in "approvers", or set "allowInitiator": true on the step.`,
        [...gate.path, "config", "allowInitiator"],
        { stepId: gate.id },
      ),
    );
  }
  return issues;
}

interface GateConfig {
  approvers?: { roles?: string[]; users?: string[] };
  quorum?: number;
  allowInitiator?: boolean;
}

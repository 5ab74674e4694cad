import "server-only";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { definitionContents, proposalReviews, workspaces } from "@/db/schema";
import { hasRole, Role } from "@/lib/schemas/roles";
import { ProposalRule, ProposalRuleSet, type RuleVerdict } from "@/lib/schemas/proposal-rules";
import type { ChangeAssessment } from "@/lib/workflow/proposal-risk-change";
import { evaluateRules, summarizeChange } from "@/lib/workflow/proposal-rule-eval";
import { ForbiddenError } from "../../errors";
import { ProposalError } from "./errors";

/**
 * The workspace's proposal rules, from settings.proposalRules. Saved sets are validated; a set
 * edited by hand keeps every rule that still parses (the others cannot be evaluated anyway).
 */
export async function loadRuleSet(db: Queryable, workspaceId: string): Promise<ProposalRuleSet> {
  const [row] = await db
    .select({ raw: sql<unknown>`${workspaces.settings} -> 'proposalRules'` })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  const whole = ProposalRuleSet.safeParse(row?.raw ?? { rules: [] });
  if (whole.success) return whole.data;
  const raw = (row?.raw ?? {}) as { rules?: unknown; allowedDomains?: unknown };
  return {
    rules: (Array.isArray(raw.rules) ? raw.rules : []).flatMap((r) => {
      const p = ProposalRule.safeParse(r);
      return p.success ? [p.data] : [];
    }),
    allowedDomains: Array.isArray(raw.allowedDomains)
      ? raw.allowedDomains.filter((d): d is string => typeof d === "string")
      : [],
  };
}

export interface RuleSubject {
  base: unknown;
  proposed: unknown;
  assessment: Pick<ChangeAssessment, "reasons" | "risk" | "needsSeniorReviewer">;
  author: { type: string; role: string };
}

/** Each rule's verdict on a change (rules given, or the workspace's). */
export async function ruleVerdictsFor(
  db: Queryable,
  workspaceId: string,
  subject: RuleSubject,
  set?: ProposalRuleSet,
): Promise<RuleVerdict[]> {
  const rules = set ?? (await loadRuleSet(db, workspaceId));
  if (!rules.rules.length) return [];
  return evaluateRules(rules.rules, {
    change: summarizeChange(subject.base, subject.proposed, subject.assessment),
    author: subject.author,
    workspace: { allowedDomains: rules.allowedDomains },
  });
}

/** Refuses (POLICY_VIOLATION, naming each rule) when a `refuse` rule fired. */
export function refuseByRules(verdicts: readonly RuleVerdict[], what: string): void {
  const refusing = verdicts.filter((v) => v.fired && v.effect === "refuse");
  if (!refusing.length) return;
  throw new ProposalError(
    "POLICY_VIOLATION",
    `${what} is refused by the workspace's proposal ${refusing.length === 1 ? "rule" : "rules"} ${refusing
      .map((v) => `"${v.rule}"${v.message && v.message !== v.rule ? ` (${v.message})` : ""}`)
      .join(", ")}`,
    {
      ruleVerdicts: verdicts,
      issues: refusing.map((v) => ({
        path: [],
        code: "POLICY_VIOLATION",
        rule: v.rule,
        message: v.error ? `${v.message} (${v.error})` : v.message,
      })),
    },
  );
}

/** The rules that ask for an admin review and fired. */
export function adminReviewRules(verdicts: readonly RuleVerdict[]): RuleVerdict[] {
  return verdicts.filter((v) => v.fired && v.effect === "require_admin_review");
}

/** A review approving a change that a `require_admin_review` rule caught needs admin or above. */
export function requireAdminReviewer(verdicts: readonly RuleVerdict[], role: Role): void {
  const needs = adminReviewRules(verdicts);
  if (needs.length && !hasRole(role, "admin"))
    throw new ForbiddenError(
      `The proposal rule ${needs.map((v) => `"${v.rule}"`).join(", ")} requires an admin to review this change; you are ${role}`,
    );
}

/** At apply: the approving review must have come from an admin when a rule asks for one. */
export async function requireAdminReviewed(
  db: Queryable,
  proposalId: string,
  verdicts: readonly RuleVerdict[],
): Promise<void> {
  const needs = adminReviewRules(verdicts);
  if (!needs.length) return;
  const [review] = await db
    .select({ role: proposalReviews.reviewerRole })
    .from(proposalReviews)
    .where(and(eq(proposalReviews.proposalId, proposalId), eq(proposalReviews.decision, "approve")))
    .orderBy(desc(proposalReviews.createdAt))
    .limit(1);
  const role = Role.safeParse(review?.role);
  if (!role.success || !hasRole(role.data, "admin"))
    throw new ProposalError(
      "SENIOR_REVIEWER_REQUIRED",
      `The proposal rule ${needs.map((v) => `"${v.rule}"`).join(", ")} requires an admin's review, but it was approved by ${review?.role ?? "nobody"}; an admin must review it again`,
      { ruleVerdicts: verdicts },
    );
}

/** A stored definition by hash (proposals and versions are content-addressed). */
export async function definitionByHash(db: Queryable, workspaceId: string, hash: string) {
  const [row] = await db
    .select({ definition: definitionContents.definition })
    .from(definitionContents)
    .where(and(eq(definitionContents.workspaceId, workspaceId), eq(definitionContents.hash, hash)));
  return row?.definition ?? null;
}

/** A stored proposal's verdicts under the current rules (review; preview). */
export async function currentRuleVerdicts(
  db: Queryable,
  p: {
    workspaceId: string;
    baseHash: string;
    proposedHash: string;
    risk: string;
    riskReasons: Record<string, unknown>[];
    needsSeniorReviewer: boolean;
    authorType: string;
    authorRole: string;
  },
  set?: ProposalRuleSet,
): Promise<RuleVerdict[]> {
  const base = await definitionByHash(db, p.workspaceId, p.baseHash);
  const proposed = await definitionByHash(db, p.workspaceId, p.proposedHash);
  if (!base || !proposed) return [];
  return ruleVerdictsFor(
    db,
    p.workspaceId,
    {
      base,
      proposed,
      assessment: {
        reasons: p.riskReasons as unknown as ChangeAssessment["reasons"],
        risk: p.risk as ChangeAssessment["risk"],
        needsSeniorReviewer: p.needsSeniorReviewer,
      },
      author: { type: p.authorType, role: p.authorRole },
    },
    set,
  );
}

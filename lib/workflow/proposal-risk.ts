/**
 * Risk level and policy verdicts of a change proposal (SPEC §8): what a reviewer must look at,
 * computed from what changes between the published definition and the proposed one. Each rule is
 * a small pure function over one precomputed `Change` and returns reasons that name the culprit.
 * Verdicts group the rules per policy; only forbidden step types (always) and script steps
 * (when the workspace disables them) block. Steps are matched by id, loop bodies included.
 */

import {
  POLICIES,
  RISK_LEVELS,
  RISK_RULES,
  describeChange,
  type AssessInput,
  type Change,
  type ChangeAssessment,
  type PolicyName,
  type PolicyVerdict,
  type RiskLevel,
  type RiskReason,
} from "./proposal-risk-change";
import { approvalGateReasons, requiredApprovalReasons } from "./proposal-risk-approvals";
import {
  constraintReasons,
  edgeRewiringReasons,
  forbiddenStepTypeReasons,
  outboundDomainReasons,
  scriptStepReasons,
  secretReasons,
  sideEffectReasons,
} from "./proposal-risk-rules";

/**
 * Reasons that describe a change without counting against its policy: the verdict still passes
 * and names them (a stricter approval gate is not a relaxation).
 */
const INFORMATIONAL_RULES: ReadonlySet<string> = new Set([RISK_RULES.approvalGateStrengthened]);

// --- verdicts and the assessment -----------------------------------------------------------

interface PolicySpec {
  readonly policy: PolicyName;
  readonly rules: ReadonlyArray<(change: Change) => RiskReason[]>;
  readonly okMessage: string;
  readonly blocking: (change: Change, reasons: readonly RiskReason[]) => boolean;
}

const POLICY_SPECS: readonly PolicySpec[] = [
  {
    policy: POLICIES.forbiddenStepTypes,
    rules: [forbiddenStepTypeReasons],
    okMessage: "No forbidden step types.",
    blocking: () => true,
  },
  {
    policy: POLICIES.scriptSteps,
    rules: [scriptStepReasons],
    okMessage: "No script step added or changed.",
    blocking: (change) => !change.input.policy.scriptStepsEnabled,
  },
  {
    policy: POLICIES.outboundDomains,
    rules: [outboundDomainReasons],
    okMessage: "No new outbound domains.",
    blocking: () => false,
  },
  {
    policy: POLICIES.approvalGates,
    rules: [approvalGateReasons],
    okMessage: "No approval gate removed, weakened or bypassed.",
    blocking: () => false,
  },
  {
    policy: POLICIES.requiredApprovals,
    rules: [requiredApprovalReasons],
    okMessage: "Every step the workspace requires an approval before follows one.",
    blocking: () => true,
  },
  {
    policy: POLICIES.secrets,
    rules: [secretReasons],
    okMessage: "No newly referenced secrets.",
    blocking: () => false,
  },
  {
    policy: POLICIES.constraints,
    rules: [constraintReasons],
    okMessage: "No constraint loosened.",
    blocking: () => false,
  },
];

/** Rules outside any policy: they raise the risk level but never give a verdict. */
const OTHER_RULES: ReadonlyArray<(change: Change) => RiskReason[]> = [
  sideEffectReasons,
  edgeRewiringReasons,
];

/** Assesses a proposal; throws DefinitionValidationError when either side does not parse. */
export function assessChange(input: AssessInput): ChangeAssessment {
  const change = describeChange(input);
  const reasons: RiskReason[] = [];
  const verdicts: PolicyVerdict[] = [];
  let needsSeniorReviewer = false;
  for (const spec of POLICY_SPECS) {
    const found = spec.rules.flatMap((rule) => rule(change));
    reasons.push(...found);
    if (spec.policy === POLICIES.constraints) needsSeniorReviewer = found.length > 0;
    verdicts.push(verdictOf(spec, change, found));
  }
  reasons.push(...OTHER_RULES.flatMap((rule) => rule(change)));
  return { risk: maxLevel(reasons), reasons, verdicts, needsSeniorReviewer };
}

function verdictOf(spec: PolicySpec, change: Change, found: readonly RiskReason[]): PolicyVerdict {
  let reasons = found;
  const notes = reasons.filter((r) => INFORMATIONAL_RULES.has(r.rule));
  if (notes.length === reasons.length)
    return {
      policy: spec.policy,
      ok: true,
      blocking: false,
      message: [spec.okMessage, ...notes.map((r) => sentence(r.message))].join(" "),
    };
  reasons = reasons.filter((r) => !INFORMATIONAL_RULES.has(r.rule));
  const stepIds = [...new Set(reasons.flatMap((r) => (r.stepId ? [r.stepId] : [])))];
  const blocking = spec.blocking(change, reasons);
  const suffix =
    spec.policy === POLICIES.scriptSteps && blocking
      ? " Script steps are disabled in this workspace."
      : "";
  return {
    policy: spec.policy,
    ok: false,
    blocking,
    message: `${reasons.map((r) => sentence(r.message)).join(" ")}${suffix}`,
    ...(stepIds.length > 0 ? { stepIds } : {}),
  };
}

function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function maxLevel(reasons: readonly Pick<RiskReason, "level">[]): RiskLevel {
  return reasons.reduce<RiskLevel>(
    (max, r) => (RISK_LEVELS.indexOf(r.level) > RISK_LEVELS.indexOf(max) ? r.level : max),
    "low",
  );
}

/**
 * Proposal rules as data (issue #29 item 8): CEL through the maintained @marcbachmann/cel-js
 * (the library trigger expressions use), in its own environment with declared variables, so a
 * typo (`chnage`) is a save-time error. CEL has no loops or recursion; the inputs are capped
 * lists, so evaluation is bounded. Variables:
 *
 *   change.addedDomains     hosts the proposed version calls that the base does not
 *   change.domains          every literal host the proposed version calls
 *   change.removedGates     ids of approval steps the change removes
 *   change.weakenedGates    ids of approval gates weakened (quorum, approvers, timeout)
 *   change.bypassedGates    ids of steps that no longer sit behind their gate
 *   change.stepTypesAdded   types of added (or retyped) steps
 *   change.stepsAdded / stepsRemoved / stepsChanged   step ids (loop bodies as loop/step)
 *   change.reasons          risk rule names found (lib/workflow/proposal-risk-change RISK_RULES)
 *   change.risk             "low" | "medium" | "high"
 *   change.constraintsLoosened   true when the change loosens the workflow's constraints
 *   author.type             "user" | "token" | "run" | "mcp";  author.role   the proposer's role
 *   workspace.allowedDomains     the rule set's domain allowlist
 *   hostIn(host, patterns)  true when host matches one of the patterns (*.example.com allowed)
 */
import { Environment } from "@marcbachmann/cel-js";
import type { ProposalRule, RuleVerdict } from "../schemas/proposal-rules";
import { hostMatches } from "./steps";
import { outboundDomains, RISK_RULES, type ChangeAssessment } from "./proposal-risk-change";
import { describeChange } from "./proposal-risk-change";

/** Lists handed to rules are capped: a pathological definition cannot make a rule slow. */
export const MAX_LIST = 500;

export interface ChangeSummary {
  addedDomains: string[];
  domains: string[];
  removedGates: string[];
  weakenedGates: string[];
  bypassedGates: string[];
  stepTypesAdded: string[];
  stepsAdded: string[];
  stepsRemoved: string[];
  stepsChanged: string[];
  reasons: string[];
  risk: string;
  constraintsLoosened: boolean;
}

export interface RuleVariables {
  change: ChangeSummary;
  author: { type: string; role: string };
  workspace: { allowedDomains: string[] };
}

const env = new Environment({ homogeneousAggregateLiterals: false })
  .registerVariable("change", "map")
  .registerVariable("author", "map")
  .registerVariable("workspace", "map")
  .registerFunction("hostIn(string, list): bool", (host: string, patterns: unknown[]) =>
    patterns.some((p) => typeof p === "string" && hostMatches(host, p.toLowerCase())),
  );

const cap = (list: Iterable<string>) => [...new Set(list)].sort().slice(0, MAX_LIST);

/** The change summary rules see, from the two definitions and their risk assessment. */
export function summarizeChange(
  base: unknown,
  proposed: unknown,
  assessment: Pick<ChangeAssessment, "reasons" | "risk" | "needsSeniorReviewer">,
): ChangeSummary {
  const change = describeChange({
    base,
    proposed,
    knownDomains: [],
    policy: { forbiddenStepTypes: [], scriptStepsEnabled: true },
  });
  const baseHosts = new Set(outboundDomains(change.base).hosts);
  const domains = outboundDomains(change.proposed).hosts;
  const path = (s: { step: { id: string }; prefix: string }) => `${s.prefix}${s.step.id}`;
  const stepsOf = (rule: string) =>
    assessment.reasons.flatMap((r) => (r.rule === rule && r.stepId ? [r.stepId] : []));
  return {
    addedDomains: cap(domains.filter((h) => !baseHosts.has(h))),
    domains: cap(domains),
    removedGates: cap(change.removed.filter((r) => r.step.type === "approval").map(path)),
    weakenedGates: cap(stepsOf(RISK_RULES.approvalGateWeakened)),
    bypassedGates: cap(stepsOf(RISK_RULES.approvalGateBypassed)),
    stepTypesAdded: cap(change.steps.filter((s) => s.status === "added").map((s) => s.step.type)),
    stepsAdded: cap(change.steps.filter((s) => s.status === "added").map(path)),
    stepsRemoved: cap(change.removed.map(path)),
    stepsChanged: cap(change.steps.filter((s) => s.status === "changed").map(path)),
    reasons: cap(assessment.reasons.map((r) => r.rule)),
    risk: assessment.risk,
    constraintsLoosened: assessment.needsSeniorReviewer,
  };
}

export interface RuleIssue {
  /** Index of the rule in the list. */
  index: number;
  rule: string;
  message: string;
  line?: number;
  column?: number;
}

/** Line and column (1-based) of a character offset. */
function position(text: string, offset: number) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

function firstLine(e: unknown) {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

/**
 * Every rule that does not parse, names an unknown variable, or is not a true/false test,
 * with its name and the line and column CEL reported.
 */
export function checkRules(rules: readonly ProposalRule[]): RuleIssue[] {
  const issues: RuleIssue[] = [];
  rules.forEach((rule, index) => {
    let problem: { message: string; offset?: number } | null = null;
    try {
      const checked = env.check(rule.expression) as {
        valid: boolean;
        type?: string;
        error?: Error & { node?: { pos?: number } };
      };
      if (!checked.valid)
        problem = { message: firstLine(checked.error), offset: checked.error?.node?.pos };
      else if (checked.type !== "bool" && checked.type !== "dyn")
        problem = { message: `the expression gives a ${checked.type}, not true or false` };
    } catch (e) {
      problem = {
        message: firstLine(e),
        offset: (e as { node?: { pos?: number } }).node?.pos,
      };
    }
    if (!problem) return;
    const at = problem.offset === undefined ? undefined : position(rule.expression, problem.offset);
    issues.push({
      index,
      rule: rule.name,
      message: at
        ? `Rule "${rule.name}", line ${at.line} column ${at.column}: ${problem.message}`
        : `Rule "${rule.name}": ${problem.message}`,
      ...(at ?? {}),
    });
  });
  return issues;
}

/**
 * Each rule's verdict. A rule that errors while evaluating (a bad type at run time) counts as
 * fired, so a broken refusal never waves a change through; its error is shown with it.
 */
export function evaluateRules(rules: readonly ProposalRule[], vars: RuleVariables): RuleVerdict[] {
  return rules.map((rule) => {
    const base = { rule: rule.name, effect: rule.effect };
    try {
      const value = env.evaluate(rule.expression, vars as unknown as Record<string, unknown>);
      if (typeof value !== "boolean")
        return {
          ...base,
          fired: true,
          message: rule.message || rule.name,
          error: `The expression gave ${typeof value}, not true or false`,
        };
      return { ...base, fired: value, message: value ? rule.message || rule.name : "" };
    } catch (e) {
      return { ...base, fired: true, message: rule.message || rule.name, error: firstLine(e) };
    }
  });
}

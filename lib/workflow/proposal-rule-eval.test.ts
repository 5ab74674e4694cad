import { describe, expect, it } from "vitest";
import { RULE_PRESETS, type ProposalRule } from "../schemas/proposal-rules";
import { assessChange } from "./proposal-risk";
import {
  checkRules,
  evaluateRules,
  summarizeChange,
  type RuleVariables,
} from "./proposal-rule-eval";

const base = {
  schemaVersion: 1,
  name: "Rules",
  steps: [
    { id: "ask", type: "approval", config: { prompt: "Go?" } },
    { id: "call", type: "http", config: { url: "https://api.known.com/x" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "call" }],
};

/*  base:     ask ──approved──▶ call (api.known.com)
 *  proposed: call (api.known.com) ──▶ post (hooks.new.io), the gate removed   */
const proposed = {
  schemaVersion: 1,
  name: "Rules",
  steps: [
    { id: "call", type: "http", config: { url: "https://api.known.com/x" } },
    { id: "post", type: "http", config: { url: "https://hooks.new.io/y" } },
  ],
};

function vars(allowedDomains: string[] = []): RuleVariables {
  const assessment = assessChange({
    base,
    proposed,
    knownDomains: [],
    policy: { forbiddenStepTypes: [], scriptStepsEnabled: true },
  });
  return {
    change: summarizeChange(base, proposed, assessment),
    author: { type: "token", role: "editor" },
    workspace: { allowedDomains },
  };
}

describe("summarizeChange", () => {
  it("lists the added domain, the removed gate and the added step type", () => {
    const v = vars();
    expect(v.change).toMatchObject({
      addedDomains: ["hooks.new.io"],
      domains: ["api.known.com", "hooks.new.io"],
      removedGates: ["ask"],
      stepTypesAdded: ["http"],
      stepsAdded: ["post"],
      stepsRemoved: ["ask"],
    });
    expect(v.change.reasons).toContain("approval_gate_removed");
  });
});

describe("presets", () => {
  it("need an admin review for a domain outside the allowlist, and refuse a removed gate", () => {
    const verdicts = evaluateRules(RULE_PRESETS, vars());
    expect(verdicts.map((v) => [v.effect, v.fired])).toEqual([
      ["require_admin_review", true],
      ["refuse", true],
      ["warn", false],
    ]);
    // *.new.io on the allowlist: the domain rule no longer fires.
    const allowed = evaluateRules(RULE_PRESETS, vars(["*.new.io"]));
    expect(allowed[0]!.fired).toBe(false);
    expect(checkRules(RULE_PRESETS)).toEqual([]);
  });
});

describe("checkRules", () => {
  const rule = (expression: string, name = "R"): ProposalRule => ({
    name,
    expression,
    effect: "refuse",
    message: "",
  });

  it("names the rule and the line and column of a parse error", () => {
    const [issue] = checkRules([
      rule("true"),
      rule('size(change.removedGates) > 0 &&\n  change.risk == "high" ||', "Broken"),
    ]);
    expect(issue).toMatchObject({ index: 1, rule: "Broken", line: 2 });
    expect(issue!.column).toBeGreaterThan(20);
    expect(issue!.message).toMatch(/^Rule "Broken", line 2 column \d+: /);
  });

  it("refuses unknown variables and expressions that are no true/false test", () => {
    expect(checkRules([rule("chnage.risk == 'high'", "Typo")])[0]!.message).toMatch(
      /Rule "Typo", line 1 column 1: Unknown variable: chnage/,
    );
    expect(checkRules([rule("size(change.stepsAdded)", "Count")])[0]!.message).toMatch(
      /gives a int, not true or false/,
    );
  });

  it("counts a rule failing at evaluation as fired, with its error", () => {
    const [v] = evaluateRules([rule("change.nope == 1")], vars());
    expect(v).toMatchObject({ fired: true });
    expect(v!.error).toBeTruthy();
  });
});

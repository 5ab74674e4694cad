import { describe, expect, it } from "vitest";
import { assessChange, maxLevel } from "./proposal-risk";
import {
  describeChange,
  outboundDomains,
  POLICIES,
  RISK_RULES,
  urlHost,
  type AssessInput,
} from "./proposal-risk-change";
import {
  approvalGateReasons,
  approvalTightenings,
  approvalWeakenings,
} from "./proposal-risk-approvals";
import {
  constraintReasons,
  edgeRewiringReasons,
  forbiddenStepTypeReasons,
  outboundDomainReasons,
  scriptStepReasons,
  secretReasons,
  sideEffectReasons,
} from "./proposal-risk-rules";

type Def = Record<string, unknown> & {
  steps: Array<Record<string, unknown>>;
  edges?: Array<Record<string, unknown>>;
};

/*
 *   lint ──▶ approve ──approved──▶ deploy
 */
const base = (): Def => ({
  schemaVersion: 1,
  name: "Release",
  constraints: { allowSelfModification: true },
  steps: [
    { id: "lint", type: "transform", config: { value: 1 } },
    {
      id: "approve",
      type: "approval",
      config: { prompt: "Ship?", approvers: { roles: ["admin"] }, quorum: 2 },
    },
    {
      id: "deploy",
      type: "http",
      config: {
        method: "POST",
        url: "https://deploy.example/api",
        headers: { authorization: "{{ secrets.DEPLOY_TOKEN }}" },
      },
    },
  ],
  edges: [
    { from: "lint", to: "approve" },
    { from: "approve", port: "approved", to: "deploy" },
  ],
});

const withSteps = (edit: (steps: Def["steps"]) => Def["steps"], def = base()): Def => ({
  ...def,
  steps: edit(structuredClone(def.steps)),
});
const input = (proposed: unknown, extra: Partial<AssessInput> = {}): AssessInput => ({
  base: base(),
  proposed,
  knownDomains: ["deploy.example"],
  policy: { forbiddenStepTypes: [], scriptStepsEnabled: true },
  ...extra,
});
const change = (proposed: unknown, extra: Partial<AssessInput> = {}) =>
  describeChange(input(proposed, extra));
const notify = {
  id: "notify_ops",
  type: "http",
  config: { method: "POST", url: "https://hooks.example.com/x" },
};

describe("outboundDomains", () => {
  it("lists literal hosts of http, notify webhooks and agent MCP servers; templated hosts are dynamic", () => {
    const def = {
      steps: [
        {
          id: "a",
          type: "http",
          config: { url: "https://API.example.com:8443/v1?q={{ input.q }}" },
        },
        {
          id: "b",
          type: "notify",
          config: { channel: "slack", target: "{{ secrets.SLACK_HOOK }}", message: "hi" },
        },
        {
          id: "c",
          type: "notify",
          config: { channel: "email", target: "ops@mail.example", message: "hi" },
        },
        {
          id: "d",
          type: "agent",
          config: { goal: "x", tools: [{ type: "mcp", url: "https://mcp.example/sse" }] },
        },
        { id: "e", type: "http", config: { url: "https://{{ vars.region }}.example.com/" } },
        {
          id: "l",
          type: "loop",
          config: {
            items: [1],
            body: {
              steps: [{ id: "inner", type: "http", config: { url: "https://inner.example/" } }],
            },
          },
        },
      ],
    };
    expect(outboundDomains(def)).toEqual({
      hosts: ["api.example.com", "inner.example", "mcp.example"],
      dynamic: ["b", "e"],
    });
  });

  it("urlHost", () => {
    expect(urlHost("https://a.example/{{ input.x }}")).toBe("a.example");
    expect(urlHost("{{ input.url }}")).toBe("dynamic");
    expect(urlHost("https://{{ input.host }}/x")).toBe("dynamic");
    expect(urlHost("not a url")).toBeNull();
  });
});

describe("rules", () => {
  it("forbidden step types: workspace policy, the definition's own list, and un-forbidding in the same proposal", () => {
    const proposed = withSteps((s) => [
      ...s,
      { id: "build", type: "script", config: { command: "make" } },
    ]);
    const byWorkspace = forbiddenStepTypeReasons(
      change(proposed, { policy: { forbiddenStepTypes: ["script"], scriptStepsEnabled: true } }),
    );
    expect(byWorkspace).toEqual([
      {
        rule: RISK_RULES.forbiddenStepType,
        level: "high",
        stepId: "build",
        message: expect.stringMatching(/"script" steps are forbidden by the workspace policy/),
      },
    ]);

    const baseForbidding = {
      ...base(),
      constraints: { allowSelfModification: true, forbiddenStepTypes: ["script"] },
    };
    const sneaky = forbiddenStepTypeReasons(
      describeChange({ ...input(proposed), base: baseForbidding }),
    );
    expect(sneaky[0]!.message).toBe(
      'script step `build` uses a type the current version forbids; the proposal removes "script" from constraints.forbiddenStepTypes to allow it.',
    );
    expect(forbiddenStepTypeReasons(change(base()))).toEqual([]);
  });

  it("script steps added or changed are high", () => {
    const added = withSteps((s) => [
      ...s,
      { id: "build", type: "script", config: { command: "make all" } },
    ]);
    expect(scriptStepReasons(change(added))).toEqual([
      {
        rule: RISK_RULES.scriptStep,
        level: "high",
        stepId: "build",
        message: 'adds script step `build` running "make all" in a shell',
      },
    ]);
    const retyped = withSteps((s) => [
      { id: "lint", type: "script", config: { command: "npm run lint" } },
      ...s.slice(1),
    ]);
    expect(scriptStepReasons(change(retyped))[0]!.message).toMatch(/^adds script step `lint`/);
  });

  it("new outbound domains and templated URLs in new or changed steps", () => {
    expect(outboundDomainReasons(change(withSteps((s) => [...s, notify])))).toEqual([
      {
        rule: RISK_RULES.newOutboundDomain,
        level: "high",
        stepId: "notify_ops",
        message:
          "adds http step `notify_ops` calling hooks.example.com, a domain no version used before",
      },
    ]);
    // Known through an earlier version (knownDomains, wildcard allowed) → nothing.
    expect(
      outboundDomainReasons(
        change(
          withSteps((s) => [...s, notify]),
          { knownDomains: ["*.example.com"] },
        ),
      ),
    ).toEqual([]);
    const redirected = withSteps((s) => {
      s[2]!.config = { method: "POST", url: "https://evil.example/api" };
      return s;
    });
    expect(outboundDomainReasons(change(redirected))[0]!.message).toBe(
      "changes http step `deploy` to call evil.example, a domain no version used before",
    );
    const dynamic = withSteps((s) => {
      s[2]!.config = { method: "POST", url: "{{ input.target }}" };
      return s;
    });
    expect(outboundDomainReasons(change(dynamic))).toEqual([
      {
        rule: RISK_RULES.dynamicUrl,
        level: "high",
        stepId: "deploy",
        message:
          'changes http step `deploy` whose config.url host comes from a template ("{{ input.target }}"), so its domain cannot be checked before it runs',
      },
    ]);
  });

  it("an unchanged templated URL is not re-reported when another field changes", () => {
    const b = withSteps((s) => {
      s[2]!.config = { method: "POST", url: "{{ input.target }}" };
      return s;
    });
    const p = withSteps((s) => {
      (s[2]!.config as Record<string, unknown>).timeoutMs = 5000;
      return s;
    }, b);
    expect(outboundDomainReasons(describeChange({ ...input(p), base: b }))).toEqual([]);
  });

  it("approval gate removed or retyped", () => {
    /*  lint ──▶ deploy   (approve gone) */
    const removed = {
      ...withSteps((s) => [s[0]!, s[2]!]),
      edges: [{ from: "lint", to: "deploy" }],
    };
    expect(approvalGateReasons(change(removed))).toEqual([
      {
        rule: RISK_RULES.approvalGateRemoved,
        level: "high",
        stepId: "approve",
        message:
          "removes approval gate `approve` (steps after it now run without a person deciding)",
      },
    ]);
    const retyped = {
      ...withSteps((s) => [
        s[0]!,
        { id: "approve", type: "transform", config: { value: true } },
        s[2]!,
      ]),
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", to: "deploy" },
      ],
    };
    expect(approvalGateReasons(change(retyped))[0]!.message).toMatch(
      /^turns approval gate `approve` into a transform step/,
    );
  });

  it("approval gate weakened", () => {
    const b = {
      prompt: "x",
      approvers: { roles: ["admin" as const] },
      quorum: 2,
      timeout: "24h",
      onTimeout: "reject" as const,
      allowInitiator: false,
    };
    expect(
      approvalWeakenings(b, {
        ...b,
        quorum: 1,
        approvers: {},
        allowInitiator: true,
        onTimeout: "approve",
        timeout: "7d",
      }),
    ).toEqual([
      "quorum lowered 2 → 1",
      "approver list removed (anyone with the approver role or above may now decide)",
      "allowInitiator turned on (the run's initiator may approve their own run)",
      "onTimeout changed to approve (no decision within 7d now approves)",
      "timeout lengthened 24h → 7d",
    ]);
    expect(
      approvalWeakenings(b, { ...b, approvers: { roles: ["admin", "approver"], users: ["bob"] } }),
    ).toEqual(["approvers widened: adds users bob", "approvers widened: adds roles approver"]);
    expect(
      approvalWeakenings(
        { ...b, approvers: { users: ["ann", "bob"] } },
        { ...b, approvers: { users: ["ann", "bob", "eve"] } },
      ),
    ).toEqual(["approvers widened: adds users eve"]);
    expect(
      approvalWeakenings(
        { ...b, onTimeout: "approve" },
        { ...b, onTimeout: "approve", timeout: "1h" },
      ),
    ).toEqual(["timeout shortened 24h → 1h (it auto-approves sooner)"]);
    // Tightening is not weakening; a modest timeout change neither.
    expect(approvalWeakenings(b, { ...b, quorum: 3, timeout: "36h", prompt: "Really?" })).toEqual(
      [],
    );

    const proposed = withSteps((s) => {
      (s[1]!.config as Record<string, unknown>).quorum = 1;
      return s;
    });
    expect(approvalGateReasons(change(proposed))).toEqual([
      {
        rule: RISK_RULES.approvalGateWeakened,
        level: "high",
        stepId: "approve",
        message: "weakens approval gate `approve`: quorum lowered 2 → 1",
      },
    ]);
  });

  it("approval gate made stricter: described as stricter, not a relaxation (issue #26.5b)", () => {
    const b = {
      prompt: "x",
      approvers: { roles: ["admin" as const, "owner" as const] },
      quorum: 1,
      timeout: "24h",
      onTimeout: "approve" as const,
      allowInitiator: true,
    };
    const stricter = {
      ...b,
      quorum: 2,
      approvers: { roles: ["owner" as const] },
      onTimeout: "reject" as const,
      allowInitiator: false,
    };
    expect(approvalTightenings(b, stricter)).toEqual([
      "quorum raised 1 → 2 (2 approvals now needed)",
      "approvers narrowed: removes roles admin",
      "allowInitiator turned off (the run's initiator may no longer approve their own run)",
      "onTimeout changed to reject (no decision no longer approves)",
    ]);
    expect(approvalWeakenings(b, stricter)).toEqual([]);
    expect(approvalTightenings(stricter, b)).toEqual([]);
    expect(
      approvalTightenings({ ...b, approvers: {} }, { ...b, approvers: { users: ["ann"] } }),
    ).toEqual(["approver list added (fewer people may decide)"]);

    // quorum 2 → 3 on the base's gate: a low reason, and the approval gates verdict passes
    // saying the gate got stricter; 2 → 1 stays a high "weakens" that warns.
    const raised = withSteps((s) => {
      (s[1]!.config as Record<string, unknown>).quorum = 3;
      return s;
    });
    expect(approvalGateReasons(change(raised))).toEqual([
      {
        rule: RISK_RULES.approvalGateStrengthened,
        level: "low",
        stepId: "approve",
        message:
          "makes approval gate `approve` stricter: quorum raised 2 → 3 (3 approvals now needed)",
      },
    ]);
    const assessed = assessChange(input(raised));
    expect(assessed.risk).toBe("low");
    expect(assessed.verdicts.find((v) => v.policy === POLICIES.approvalGates)).toEqual({
      policy: POLICIES.approvalGates,
      ok: true,
      blocking: false,
      message:
        "No approval gate removed, weakened or bypassed. Makes approval gate `approve` stricter: quorum raised 2 → 3 (3 approvals now needed).",
    });
    const lowered = withSteps((s) => {
      (s[1]!.config as Record<string, unknown>).quorum = 1;
      return s;
    });
    expect(
      assessChange(input(lowered)).verdicts.find((v) => v.policy === POLICIES.approvalGates),
    ).toEqual({
      policy: POLICIES.approvalGates,
      ok: false,
      blocking: false,
      message: "Weakens approval gate `approve`: quorum lowered 2 → 1.",
      stepIds: ["approve"],
    });
  });

  it("approval gate bypassed by rewiring", () => {
    /*
     *   lint ──▶ approve ──approved──▶ deploy
     *     └───────────────────────────────▲     (new edge: deploy runs even when rejected)
     */
    const proposed = { ...base(), edges: [...base().edges!, { from: "lint", to: "deploy" }] };
    const reasons = approvalGateReasons(change(proposed));
    expect(reasons).toEqual([
      {
        rule: RISK_RULES.approvalGateBypassed,
        level: "high",
        stepId: "approve",
        message:
          "rewires around approval gate `approve`: `deploy` can now run without its approval",
      },
    ]);
  });

  it("new secrets: medium, high when the step calls a new domain", () => {
    const leak = withSteps((s) => [
      ...s,
      { ...notify, config: { ...notify.config, headers: { "x-key": "{{ secrets.OPS_KEY }}" } } },
    ]);
    expect(secretReasons(change(leak))).toEqual([
      {
        rule: RISK_RULES.newSecret,
        level: "high",
        stepId: "notify_ops",
        message:
          "http step `notify_ops` uses secret OPS_KEY, which the current version does not use and sends it to hooks.example.com, a domain no version used before",
      },
    ]);
    const script = withSteps((s) => [
      ...s,
      {
        id: "build",
        type: "script",
        config: { command: "make", secrets: { NPM_TOKEN: "NPM_TOKEN" } },
      },
    ]);
    expect(secretReasons(change(script))).toEqual([
      {
        rule: RISK_RULES.newSecret,
        level: "medium",
        stepId: "build",
        message:
          "script step `build` uses secret NPM_TOKEN, which the current version does not use",
      },
    ]);
    // DEPLOY_TOKEN is already used by the base.
    const reused = withSteps((s) => [
      ...s,
      { id: "t", type: "transform", config: { value: "{{ secrets.DEPLOY_TOKEN }}" } },
    ]);
    expect(secretReasons(change(reused))).toEqual([]);
  });

  it("loosened constraints", () => {
    const b = {
      ...base(),
      constraints: { allowSelfModification: false, forbiddenStepTypes: ["script", "code"] },
    };
    const p = {
      ...base(),
      constraints: {
        allowSelfModification: true,
        maxSteps: 200,
        timeoutMs: 1000,
        forbiddenStepTypes: ["code"],
      },
    };
    expect(
      constraintReasons(describeChange({ ...input(p), base: b })).map((r) => r.message),
    ).toEqual([
      "turns on constraints.allowSelfModification (the workflow may then propose changes to itself)",
      "raises constraints.maxSteps 50 → 200",
      "stops forbidding script steps (constraints.forbiddenStepTypes)",
    ]);
  });

  it("side-effecting steps added, changed or removed are medium; renames are not", () => {
    const p = withSteps((s) => {
      s[2]!.name = "Deploy it";
      return [
        ...s,
        { id: "announce", type: "emit_event", config: { event: "release.done" } },
        { id: "calc", type: "code", config: { source: "export default () => 1" } },
      ];
    });
    expect(sideEffectReasons(change(p)).map((r) => r.message)).toEqual([
      "adds emit_event step `announce`",
      "adds code step `calc`",
    ]);
    const retried = withSteps((s) => {
      s[2]!.retry = { maxAttempts: 3 };
      return s;
    });
    expect(sideEffectReasons(change(retried)).map((r) => r.message)).toEqual([
      "changes http step `deploy`: retry.maxAttempts",
    ]);
    const { edges: _e, ...noEdges } = base();
    expect(
      sideEffectReasons(change({ ...noEdges, steps: base().steps.slice(0, 2) })).map(
        (r) => r.message,
      ),
    ).toEqual(["removes http step `deploy`"]);
  });

  it("edge rewiring between surviving steps is medium; edges of added steps are not rewiring", () => {
    const p = {
      ...base(),
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", port: "approved", to: "deploy", onFailure: "fail_run" },
      ],
    };
    expect(edgeRewiringReasons(change(p))).toEqual([
      {
        rule: RISK_RULES.edgeRewired,
        level: "medium",
        message: "changes edge approve —approved→ deploy: onFailure skip → fail_run",
      },
    ]);
    const appended = {
      ...withSteps((s) => [...s, { id: "done", type: "return", config: {} }]),
      edges: [...base().edges!, { from: "deploy", to: "done" }],
    };
    expect(edgeRewiringReasons(change(appended))).toEqual([]);
  });

  it("maxLevel", () => {
    expect(maxLevel([])).toBe("low");
    expect(maxLevel([{ level: "medium" }, { level: "high" }, { level: "low" }])).toBe("high");
  });
});

describe("assessChange", () => {
  it("pure changes are low with every policy ok", () => {
    const p = withSteps((s) => {
      s[0]!.config = { value: 2 };
      s[0]!.name = "Lint";
      return s;
    });
    const result = assessChange(
      input({ ...p, description: "new words", layout: { positions: { lint: { x: 1, y: 2 } } } }),
    );
    expect(result.risk).toBe("low");
    expect(result.reasons).toEqual([]);
    expect(result.needsSeniorReviewer).toBe(false);
    expect(result.verdicts.map((v) => v.policy)).toEqual(Object.values(POLICIES));
    expect(result.verdicts.every((v) => v.ok && !v.blocking)).toBe(true);
    expect(result.verdicts.find((v) => v.policy === POLICIES.outboundDomains)!.message).toBe(
      "No new outbound domains.",
    );
  });

  it("a side effect alone is medium", () => {
    const result = assessChange(
      input(
        withSteps((s) => [
          ...s,
          { id: "ping", type: "http", config: { url: "https://deploy.example/ping" } },
        ]),
      ),
    );
    expect(result.risk).toBe("medium");
    expect(result.verdicts.every((v) => v.ok)).toBe(true);
  });

  it("script steps block only when the workspace disables them", () => {
    const p = withSteps((s) => [
      ...s,
      { id: "build", type: "script", config: { command: "make" } },
    ]);
    const enabled = assessChange(input(p)).verdicts.find((v) => v.policy === POLICIES.scriptSteps)!;
    expect(enabled).toMatchObject({ ok: false, blocking: false, stepIds: ["build"] });
    const disabled = assessChange(
      input(p, { policy: { forbiddenStepTypes: [], scriptStepsEnabled: false } }),
    );
    expect(disabled.risk).toBe("high");
    expect(disabled.verdicts.find((v) => v.policy === POLICIES.scriptSteps)).toEqual({
      policy: POLICIES.scriptSteps,
      ok: false,
      blocking: true,
      stepIds: ["build"],
      message:
        'Adds script step `build` running "make" in a shell. Script steps are disabled in this workspace.',
    });
  });

  /*
   *   lint ──▶ approve ──approved──▶ deploy (POST)
   *     └──────────────────────────▶ ping (POST)      ← added beside the gate
   */
  it("required approvals block a change that adds a covered step beside the gate", () => {
    const policy = {
      forbiddenStepTypes: [],
      scriptStepsEnabled: true,
      requiredApprovals: ["http_write" as const],
    };
    expect(
      assessChange(input(base(), { policy })).verdicts.find(
        (v) => v.policy === POLICIES.requiredApprovals,
      ),
    ).toMatchObject({ ok: true, blocking: false });
    const p = {
      ...withSteps((s) => [...s, { ...notify, id: "ping" }]),
      edges: [...base().edges!, { from: "lint", to: "ping" }],
    };
    const result = assessChange(input(p, { policy }));
    expect(result.verdicts.find((v) => v.policy === POLICIES.requiredApprovals)).toEqual({
      policy: POLICIES.requiredApprovals,
      ok: false,
      blocking: true,
      stepIds: ["ping"],
      message:
        'Step "ping" (http POST) is reachable without an approval: start → lint → ping. Put an approval step before it on every path (workspace policy: required approvals).',
    });
    // Without the policy the same change only warns.
    expect(
      assessChange(input(p)).verdicts.find((v) => v.policy === POLICIES.requiredApprovals),
    ).toMatchObject({ ok: true });
  });

  it("forbidden types block; loosened constraints need a senior reviewer", () => {
    const p = {
      ...withSteps((s) => [
        ...s,
        { id: "calc", type: "code", config: { source: "export default () => 1" } },
      ]),
      constraints: { allowSelfModification: true, maxParallel: 8 },
    };
    const result = assessChange(
      input(p, { policy: { forbiddenStepTypes: ["code"], scriptStepsEnabled: true } }),
    );
    expect(result.risk).toBe("high");
    expect(result.needsSeniorReviewer).toBe(true);
    expect(result.verdicts.find((v) => v.policy === POLICIES.forbiddenStepTypes)).toMatchObject({
      ok: false,
      blocking: true,
      stepIds: ["calc"],
    });
    expect(result.verdicts.find((v) => v.policy === POLICIES.constraints)).toMatchObject({
      ok: false,
      blocking: false,
      message: "Raises constraints.maxParallel 4 → 8.",
    });
  });

  it("loop bodies are inspected too", () => {
    const loop = (url: string) => ({
      id: "each",
      type: "loop",
      config: { items: [1, 2], body: { steps: [{ id: "call", type: "http", config: { url } }] } },
    });
    const b = withSteps((s) => [...s, loop("https://deploy.example/x")]);
    const p = withSteps((s) => [...s, loop("https://other.example/x")]);
    const result = assessChange({ ...input(p), base: b });
    expect(result.reasons.map((r) => r.message)).toContain(
      "changes http step `each/call` to call other.example, a domain no version used before",
    );
  });

  it("throws when a side does not parse", () => {
    expect(() => assessChange(input({ name: "x" }))).toThrow();
  });
});

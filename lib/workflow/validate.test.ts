import { afterAll, describe, expect, it } from "vitest";
import {
  DefinitionValidationError,
  ISSUE_CODES,
  type IssueCode,
  type ValidationIssue,
} from "./issues";
import { parseDefinition, validateDefinition, type ValidateOptions } from "./validate";

// Every issue code must be exercised by at least one test in this file (checked in afterAll).
const seen = new Set<IssueCode>();

function issuesOf(input: unknown, options?: ValidateOptions): ValidationIssue[] {
  const result = validateDefinition(input, options);
  result.issues.forEach((i) => seen.add(i.code));
  return result.issues;
}

function expectIssue(
  input: unknown,
  code: IssueCode,
  match: Partial<Omit<ValidationIssue, "message">> & { message?: string | RegExp } = {},
  options?: ValidateOptions,
): ValidationIssue {
  const issues = issuesOf(input, options);
  const found = issues.filter((i) => i.code === code);
  expect(
    found,
    `expected ${code} in:\n${issues.map((i) => `${i.code} ${JSON.stringify(i.path)} ${i.message}`).join("\n")}`,
  ).not.toHaveLength(0);
  const { message, ...rest } = match;
  const hit = found.find(
    (i) =>
      (message === undefined ||
        (typeof message === "string" ? i.message === message : message.test(i.message))) &&
      Object.entries(rest).every(
        ([k, v]) => JSON.stringify(i[k as keyof ValidationIssue]) === JSON.stringify(v),
      ),
  );
  expect(
    hit,
    `no ${code} matching ${JSON.stringify(match, (_k, v: unknown) => (v instanceof RegExp ? String(v) : v))}; got:\n${found.map((i) => `${JSON.stringify(i.path)} ${i.message}`).join("\n")}`,
  ).toBeDefined();
  return hit!;
}

const base = (extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name: "Test",
  ...extra,
});
const t = (id: string, value: unknown = null, extra: Record<string, unknown> = {}) => ({
  id,
  type: "transform",
  config: { value },
  ...extra,
});

const SPEC_EXAMPLE = {
  schemaVersion: 1,
  name: "Release train",
  description: "Lint, ask, deploy",
  inputs: { version: { type: "string", required: true, description: "semver" } },
  variables: { env: "staging" },
  constraints: {
    allowSelfModification: false,
    maxSteps: 50,
    timeoutMs: 3600000,
    maxParallel: 4,
    forbiddenStepTypes: [],
  },
  steps: [
    {
      id: "lint",
      type: "script",
      name: "Lint",
      config: { command: "npm run lint" },
      retry: { maxAttempts: 3, backoffMs: [10000, 30000] },
      timeoutMs: 120000,
    },
    {
      id: "approve",
      type: "approval",
      config: { prompt: "Ship {{ input.version }}?", timeout: "24h", onTimeout: "reject" },
    },
    {
      id: "deploy",
      type: "http",
      config: {
        method: "POST",
        url: "https://deploy.example/api",
        body: { v: "{{ input.version }}" },
      },
      when: { ref: "steps.lint.output.data.exitCode", eq: 0 },
    },
  ],
  edges: [
    { from: "lint", to: "approve" },
    { from: "approve", port: "approved", to: "deploy", onFailure: "fail_run" },
  ],
  output: "{{ steps.deploy.output.data }}",
};

describe("valid definitions", () => {
  it("accepts the SPEC example with no errors and fills defaults", () => {
    const result = validateDefinition(SPEC_EXAMPLE);
    // Its 1-day approval gate outlives the default 1 h run deadline: a warning, not an error
    // (before this warning existed, such a gate was silently cut to one hour).
    // Its output reads "deploy", which runs only when the gate is approved: a warning too.
    expect(result.issues.map((i) => [i.code, i.severity])).toEqual([
      ["WAIT_EXCEEDS_DEADLINE", "warning"],
      ["MAY_READ_SKIPPED_STEP", "warning"],
    ]);
    expect(result.ok).toBe(true);
    const def = result.definition!;
    expect(def.constraints).toMatchObject({ maxConcurrentRuns: 10, overflow: "queue" });
    expect(def.timezone).toBe("UTC");
    expect(def.steps[2]).toMatchObject({
      retry: { maxAttempts: 1, backoffMs: 1000 },
      config: { timeoutMs: 30000, headers: {}, allowedDomains: [], maxResponseBytes: 1048576 },
    });
    expect(def.steps[1]!.config).toMatchObject({ quorum: 1, allowInitiator: false, approvers: {} });
    expect(def.edges![0]).toEqual({
      from: "lint",
      to: "approve",
      port: "success",
      onFailure: "skip",
    });
  });

  it("fills edge ports from the source type (condition → true, approval → approved, loop → done)", () => {
    const def = parseDefinition(
      base({
        steps: [
          { id: "c", type: "condition", config: { condition: { ref: "input.x" } } },
          { id: "a", type: "approval", config: { prompt: "ok?" } },
          {
            id: "l",
            type: "loop",
            config: {
              items: [1],
              body: { steps: [t("b1"), t("b2")], edges: [{ from: "b1", to: "b2" }] },
            },
          },
          t("end"),
        ],
        inputs: { x: { type: "boolean" } },
        edges: [
          { from: "c", to: "a" },
          { from: "a", to: "l" },
          { from: "l", to: "end" },
        ],
      }),
    );
    expect(def.edges!.map((e) => e.port)).toEqual(["true", "approved", "done"]);
    const loop = def.steps[2]!;
    expect(loop.type === "loop" && loop.config.body?.edges?.[0]?.port).toBe("success");
  });

  it("warnings do not make a definition invalid", () => {
    const result = validateDefinition(base({ steps: [t("a"), t("b")], edges: [] }));
    expect(result.ok).toBe(true);
    expect(result.issues.every((i) => i.severity === "warning")).toBe(true);
  });

  it("parseDefinition throws a DefinitionValidationError carrying every issue", () => {
    try {
      parseDefinition(base({ steps: [t("a"), t("a")], edges: [{ from: "a", to: "zz" }] }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionValidationError);
      const issues = (error as DefinitionValidationError).issues;
      expect(issues.map((i) => i.code)).toEqual(
        expect.arrayContaining(["DUPLICATE_STEP_ID", "UNKNOWN_EDGE_TARGET"]),
      );
      expect((error as Error).message).toMatch(/2 errors/);
    }
  });
});

describe("shape", () => {
  it.each([[null], [[]], ["steps"], [42], [undefined]])("NOT_AN_OBJECT for %j", (input) => {
    expectIssue(input, "NOT_AN_OBJECT", {
      path: [],
      severity: "error",
      message: /must be a JSON object/,
    });
  });

  it("DEFINITION_TOO_LARGE for deep nesting, cyclic objects and huge inputs (no crash)", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = { a: deep };
    expectIssue(base({ variables: { deep }, steps: [t("a")] }), "DEFINITION_TOO_LARGE", {
      message: /deeper than 64/,
    });
    const cyclic: Record<string, unknown> = base({ steps: [t("a")] });
    cyclic.self = cyclic;
    expectIssue(cyclic, "DEFINITION_TOO_LARGE");
    expectIssue(
      base({ variables: { big: Array.from({ length: 600_000 }, () => 0) }, steps: [t("a")] }),
      "DEFINITION_TOO_LARGE",
      { message: /more than 500000 values/ },
    );
  });

  it("UNSUPPORTED_SCHEMA_VERSION", () => {
    expectIssue({ ...SPEC_EXAMPLE, schemaVersion: 2 }, "UNSUPPORTED_SCHEMA_VERSION", {
      path: ["schemaVersion"],
      message: /reads schemaVersion 1/,
    });
  });

  it("UNKNOWN_KEY at the top level, in steps, configs, edges and constraints, with hints", () => {
    expectIssue({ ...SPEC_EXAMPLE, nme: "x" }, "UNKNOWN_KEY", {
      path: ["nme"],
      message:
        /Unknown key "nme" in the workflow definition\. Allowed keys: schemaVersion, name,.* Did you mean "name"\?/,
    });
    expectIssue(
      base({
        steps: [{ id: "h", type: "http", config: { url: "https://x.example", metod: "POST" } }],
      }),
      "UNKNOWN_KEY",
      {
        path: ["steps", 0, "config", "metod"],
        stepId: "h",
        message:
          /Unknown key "metod" in Step "h" \(http\) config\. Allowed keys: method, url,.*Did you mean "method"\?/,
      },
    );
    expectIssue(base({ steps: [t("a", 1, { label: "x" })] }), "UNKNOWN_KEY", {
      path: ["steps", 0, "label"],
      stepId: "a",
    });
    expectIssue(
      base({ steps: [t("a"), t("b")], edges: [{ from: "a", to: "b", kind: "x" }] }),
      "UNKNOWN_KEY",
      { path: ["edges", 0, "kind"], edgeIndex: 0 },
    );
    expectIssue(base({ steps: [t("a")], constraints: { maxParalel: 2 } }), "UNKNOWN_KEY", {
      path: ["constraints", "maxParalel"],
      message: /in constraints.*Did you mean "maxParallel"/,
    });
  });

  it("FORBIDDEN_KEY for __proto__ anywhere (JSON.parse makes it an own key)", () => {
    const input = JSON.parse(
      '{"schemaVersion":1,"name":"x","variables":{"__proto__":{"polluted":true}},"steps":[{"id":"a","type":"transform","config":{"value":{"__proto__":1}}}]}',
    ) as unknown;
    expectIssue(input, "FORBIDDEN_KEY", { path: ["variables", "__proto__"] });
    expectIssue(input, "FORBIDDEN_KEY", {
      path: ["steps", 0, "config", "value", "__proto__"],
      stepId: "a",
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("MISSING_FIELD names what is missing", () => {
    expectIssue({ schemaVersion: 1, steps: [t("a")] }, "MISSING_FIELD", {
      path: ["name"],
      message: "Workflow: name is required.",
    });
    expectIssue(base({}), "MISSING_FIELD", { path: ["steps"] });
    expectIssue(base({ steps: [{ id: "a", config: {} }] }), "MISSING_FIELD", {
      path: ["steps", 0, "type"],
      message: /Step "a": "type" is required; use one of transform, condition/,
    });
    expectIssue(base({ steps: [t("a"), t("b")], edges: [{ from: "a" }] }), "MISSING_FIELD", {
      path: ["edges", 0, "to"],
      edgeIndex: 0,
    });
  });

  it("INVALID_TYPE says what was expected and what was found", () => {
    expectIssue(base({ name: 5, steps: [t("a")] }), "INVALID_TYPE", {
      path: ["name"],
      message: "Workflow: name: expected string, got a number.",
    });
    expectIssue(base({ steps: "a,b" }), "INVALID_TYPE", {
      path: ["steps"],
      message: /expected array, got a string/,
    });
    expectIssue(
      base({ steps: [t("a")], variables: { fn: Number.POSITIVE_INFINITY } }),
      "INVALID_TYPE",
      { path: ["variables", "fn"], message: /Infinity is not a JSON number/ },
    );
    expectIssue(base({ steps: [t("a", new Date(0))] }), "INVALID_STEP_CONFIG", {
      path: ["steps", 0, "config", "value"],
      message: /a Date object is not a JSON value/,
    });
  });

  it("INVALID_VALUE for out-of-range numbers, bad enums and bad time zones", () => {
    expectIssue(base({ steps: [t("a")], constraints: { maxParallel: 100 } }), "INVALID_VALUE", {
      path: ["constraints", "maxParallel"],
      message: /must be at most 32, got 100/,
    });
    expectIssue(base({ steps: [t("a")], constraints: { overflow: "drop" } }), "INVALID_VALUE", {
      path: ["constraints", "overflow"],
      message: /must be one of "queue", "skip", "coalesce", got "drop"/,
    });
    expectIssue(base({ steps: [t("a")], timezone: "Mars/Olympus" }), "INVALID_VALUE", {
      path: ["timezone"],
      message: /IANA time zone/,
    });
    expectIssue(
      base({ steps: [t("a")], inputs: { n: { type: "number", default: "five" } } }),
      "INVALID_VALUE",
      { path: ["inputs", "n", "default"], message: /must be of type number/ },
    );
    expectIssue(
      base({ steps: [t("a")], inputs: { "bad-name": { type: "string" } } }),
      "INVALID_VALUE",
      { path: ["inputs", "bad-name"], message: /invalid key "bad-name"/ },
    );
    expectIssue(base({ steps: [t("a")], variables: { constructor: 1 } }), "INVALID_VALUE", {
      path: ["variables", "constructor"],
    });
    expectIssue(base({ steps: [t("a", null, { retry: { maxAttempts: 11 } })] }), "INVALID_VALUE", {
      path: ["steps", 0, "retry", "maxAttempts"],
      stepId: "a",
    });
  });

  it("INVALID_STEP_ID even when the type is unknown", () => {
    expectIssue(base({ steps: [t("Fetch")] }), "INVALID_STEP_ID", {
      path: ["steps", 0, "id"],
      message:
        /Step "Fetch" \(transform\): invalid id "Fetch": Step ids start with a lower-case letter/,
    });
    expectIssue(base({ steps: [t("a".repeat(65))] }), "INVALID_STEP_ID", {
      message: /at most 64 characters/,
    });
    expectIssue(base({ steps: [{ id: "Bad", type: "nope" }] }), "INVALID_STEP_ID", {
      path: ["steps", 0, "id"],
    });
  });

  it("UNKNOWN_STEP_TYPE lists the types and suggests the closest", () => {
    expectIssue(base({ steps: [{ id: "a", type: "htp", config: {} }] }), "UNKNOWN_STEP_TYPE", {
      path: ["steps", 0, "type"],
      stepId: "a",
      message:
        /unknown step type "htp"; use one of transform, .*return, task, tool\. Did you mean "http"\?/,
    });
    expectIssue(base({ steps: [{ id: "a", type: 7 }] }), "UNKNOWN_STEP_TYPE");
  });

  it("INVALID_STEP_CONFIG for each kind of config problem", () => {
    const cases: Array<[unknown, (string | number)[], RegExp]> = [
      [{ id: "s", type: "http", config: {} }, ["config", "url"], /config.url is required/],
      [
        { id: "s", type: "http", config: { url: "ftp://x" } },
        ["config", "url"],
        /scheme "ftp:" is not allowed/,
      ],
      [
        { id: "s", type: "http", config: { url: "https://user:pw@x.example" } },
        ["config", "url"],
        /Credentials in URLs/,
      ],
      [
        { id: "s", type: "http", config: { url: "https://x.example", method: "FETCH" } },
        ["config", "method"],
        /must be one of "GET"/,
      ],
      [
        { id: "s", type: "http", config: { url: "https://x.example", body: { a: 1 } } },
        ["config", "body"],
        /GET request cannot have a body/,
      ],
      [
        {
          id: "s",
          type: "http",
          config: { url: "https://evil.example", allowedDomains: ["api.example.com"] },
        },
        ["config", "url"],
        /not in allowedDomains/,
      ],
      [
        { id: "s", type: "http", config: { url: "https://x.example", timeoutMs: 999999 } },
        ["config", "timeoutMs"],
        /at most 300000/,
      ],
      [
        { id: "s", type: "script", config: { command: "ls", cwd: "../etc" } },
        ["config", "cwd"],
        /inside the scratch directory/,
      ],
      [
        {
          id: "s",
          type: "script",
          config: { command: "ls", env: { A: "1" }, secrets: { A: "TOKEN" } },
        },
        ["config", "secrets", "A"],
        /both env and secrets/,
      ],
      [
        { id: "s", type: "code", config: { source: "function f() {}" } },
        ["config", "source"],
        /export a default function/,
      ],
      [
        { id: "s", type: "delay", config: { duration: "1m", until: "2030-01-01T00:00:00Z" } },
        ["config", "until"],
        /exactly one of "duration" or "until", not both/,
      ],
      [{ id: "s", type: "delay", config: {} }, ["config"], /exactly one of "duration" or "until"/],
      [
        { id: "s", type: "delay", config: { until: "next tuesday" } },
        ["config", "until"],
        /not an ISO 8601 date-time/,
      ],
      [
        {
          id: "s",
          type: "approval",
          config: { prompt: "ok?", approvers: { users: ["a@x.io"] }, quorum: 2 },
        },
        ["config", "quorum"],
        /quorum 2 can never be reached/,
      ],
      [
        {
          id: "s",
          type: "notify",
          config: {
            channel: "slack",
            target: "https://hooks.example",
            message: "hi",
            subject: "x",
          },
        },
        ["config", "subject"],
        /only used by the email channel/,
      ],
      [
        {
          id: "s",
          type: "notify",
          config: { channel: "email", target: "not-an-email", message: "hi" },
        },
        ["config", "target"],
        /not an email address/,
      ],
      [
        { id: "s", type: "loop", config: { items: [1] } },
        ["config"],
        /exactly one of "body" or "workflow"/,
      ],
      [
        { id: "s", type: "loop", config: { items: "steps.x.output", workflow: "child" } },
        ["config", "items"],
        /one template yielding an array/,
      ],
      [
        { id: "s", type: "propose_change", config: { summary: "x" } },
        ["config"],
        /exactly one of "definition" or "patch"/,
      ],
      [
        {
          id: "s",
          type: "propose_change",
          config: { summary: "x", patch: [{ op: "replace", path: "/name" }] },
        },
        ["config", "patch", 0, "value"],
        /needs "value"/,
      ],
      [
        { id: "s", type: "agent", config: { goal: "x", tools: [{ type: "shell" }] } },
        ["config", "tools", 0, "type"],
        /./,
      ],
      [
        { id: "s", type: "llm", config: { prompt: "x", temperature: 3 } },
        ["config", "temperature"],
        /at most 2/,
      ],
      [
        { id: "s", type: "wait_for_event", config: { event: "order.paid" } },
        ["config", "timeout"],
        /is required/,
      ],
      [
        { id: "s", type: "subworkflow", config: { workflow: "child", version: "v1" } },
        ["config", "version"],
        /semver/,
      ],
    ];
    for (const [step, path, message] of cases) {
      const def = base({ constraints: { allowSelfModification: true }, steps: [step] });
      expectIssue(def, "INVALID_STEP_CONFIG", {
        path: ["steps", 0, ...path],
        stepId: "s",
        message,
      });
    }
  });

  it("INVALID_CONDITION, INVALID_REGEX and INVALID_DURATION keep their own codes", () => {
    expectIssue(
      base({
        steps: [t("a", null, { when: { ref: "input.x", eq: 1, gt: 0 } })],
        inputs: { x: { type: "number" } },
      }),
      "INVALID_CONDITION",
      { path: ["steps", 0, "when"], message: /one operator, found eq and gt/ },
    );
    expectIssue(
      base({
        steps: [
          {
            id: "c",
            type: "condition",
            config: { condition: { ref: "input.x", matches: "(a+)+" } },
          },
        ],
        inputs: { x: { type: "string" } },
      }),
      "INVALID_REGEX",
      { path: ["steps", 0, "config", "condition", "matches"] },
    );
    expectIssue(
      base({ steps: [{ id: "a", type: "approval", config: { prompt: "?", timeout: "1.5h" } }] }),
      "INVALID_DURATION",
      { path: ["steps", 0, "config", "timeout"], message: /Invalid duration "1.5h"/ },
    );
    expectIssue(
      base({ steps: [{ id: "w", type: "wait_for_event", config: { event: "e", timeout: "90" } }] }),
      "INVALID_DURATION",
      { message: /no unit/ },
    );
  });

  it("rejects wrong shapes everywhere without throwing", () => {
    const weird: unknown[] = [
      base({ steps: [null, 1, "x", [], { id: 1 }] }),
      base({ steps: [t("a")], edges: "a->b" }),
      base({ steps: [t("a")], edges: [null, 5, { from: 1, to: [] }] }),
      base({ steps: [t("a")], inputs: [] }),
      base({ steps: [t("a")], constraints: null }),
      base({ steps: [{ id: "l", type: "loop", config: { items: [1], body: { steps: "x" } } }] }),
      base({
        steps: [
          { id: "l", type: "loop", config: { items: [1], body: { steps: [null], edges: [{}] } } },
        ],
      }),
      base({ steps: [t("a", null, { when: "input.x" })] }),
      base({ steps: [t("a", null, { when: { all: [null, { not: [] }] } })] }),
      base({ steps: [t("a", 10n as unknown)] }),
      base({ steps: [t("a", () => 1)] }),
      base({ steps: [t("a", Symbol("x"))] }),
      base({ steps: [t("a", new Map())] }),
      base({ steps: [{ id: "a", type: "transform", config: "value" }] }),
    ];
    for (const input of weird) {
      const result = validateDefinition(input);
      expect(result.ok).toBe(false);
      expect(result.issues.length).toBeGreaterThan(0);
      for (const issue of result.issues) {
        expect(issue.message.length).toBeGreaterThan(10);
        expect(Array.isArray(issue.path)).toBe(true);
      }
    }
  });

  it("handles a huge string without trouble", () => {
    const result = validateDefinition(base({ steps: [t("a", "x".repeat(2_000_000))] }));
    expect(result.ok).toBe(true);
  });
});

describe("graph", () => {
  it("NO_STEPS", () => {
    expectIssue(base({ steps: [] }), "NO_STEPS", { path: ["steps"] });
  });

  it("DUPLICATE_STEP_ID, including across loop bodies", () => {
    expectIssue(base({ steps: [t("a"), t("a")] }), "DUPLICATE_STEP_ID", {
      path: ["steps", 1, "id"],
      stepId: "a",
      message: /Step id "a" is used more than once \(first at the top level\)/,
    });
    const loop = { id: "each", type: "loop", config: { items: [1], body: { steps: [t("a")] } } };
    expectIssue(base({ steps: [t("a"), loop] }), "DUPLICATE_STEP_ID", {
      path: ["steps", 1, "config", "body", "steps", 0, "id"],
    });
  });

  it("UNKNOWN_EDGE_SOURCE / UNKNOWN_EDGE_TARGET, with hints", () => {
    expectIssue(
      base({ steps: [t("lint"), t("deploy")], edges: [{ from: "lnt", to: "deploy" }] }),
      "UNKNOWN_EDGE_SOURCE",
      {
        path: ["edges", 0, "from"],
        edgeIndex: 0,
        message:
          'Edge #0 ("lnt" → "deploy"): source step "lnt" does not exist. Did you mean "lint"?',
      },
    );
    expectIssue(
      base({ steps: [t("lint")], edges: [{ from: "lint", to: "ghost" }] }),
      "UNKNOWN_EDGE_TARGET",
      { path: ["edges", 0, "to"], message: /target step "ghost" does not exist/ },
    );
    const loop = {
      id: "each",
      type: "loop",
      config: { items: [1], body: { steps: [t("inner")] } },
    };
    expectIssue(
      base({ steps: [t("a"), loop], edges: [{ from: "a", to: "inner" }] }),
      "UNKNOWN_EDGE_TARGET",
      {
        message:
          /is in the body of loop "each", not at the top level; edges cannot cross a loop boundary/,
      },
    );
  });

  it("UNKNOWN_PORT names the target, the source, the port and the allowed ports", () => {
    const def = base({
      steps: [
        { id: "lint", type: "script", config: { command: "npm run lint" } },
        { id: "deploy", type: "http", config: { url: "https://deploy.example" } },
      ],
      edges: [{ from: "lint", to: "deploy", port: "approved" }],
    });
    expectIssue(def, "UNKNOWN_PORT", {
      path: ["edges", 0, "port"],
      stepId: "deploy",
      edgeIndex: 0,
      message:
        'Step "deploy": edge from "lint" uses port "approved", but a script step only has ports success, error.',
    });
    const cond = base({
      steps: [{ id: "c", type: "condition", config: { condition: { ref: "input.x" } } }, t("b")],
      inputs: { x: { type: "boolean" } },
      edges: [{ from: "c", to: "b", port: "success" }],
    });
    expectIssue(cond, "UNKNOWN_PORT", {
      message: /a condition step only has ports true, false, error/,
    });
  });

  it("DUPLICATE_EDGE (same from, port and to; the default port counts)", () => {
    expectIssue(
      base({
        steps: [t("a"), t("b")],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "b", port: "success" },
        ],
      }),
      "DUPLICATE_EDGE",
      { path: ["edges", 1], message: /duplicates edge #0/ },
    );
  });

  it("CYCLE names the steps in order and the links", () => {
    const issue = expectIssue(
      base({
        steps: [t("a"), t("b"), t("c")],
        edges: [
          { from: "a", to: "b" },
          { from: "b", to: "c" },
          { from: "c", to: "a" },
        ],
      }),
      "CYCLE",
      {
        message:
          'Steps form a cycle: "a" → "b" → "c" → "a" (edge #0, edge #1, edge #2). A workflow must be acyclic; remove one of these links.',
      },
    );
    expect(issue.path).toEqual(["edges", 0]);
    expectIssue(base({ steps: [t("a")], edges: [{ from: "a", to: "a" }] }), "CYCLE", {
      message: /"a" → "a"/,
    });
    // A when-dependency can close a cycle too.
    expectIssue(
      base({
        steps: [t("a", null, { when: { ref: "steps.b.output.data" } }), t("b")],
        edges: [{ from: "a", to: "b" }],
      }),
      "CYCLE",
      { message: /"a".when references "b"/ },
    );
    // Without edges, array order links the steps: a `when` on a later step closes the cycle. The
    // issue points at that `when`, never at an "edge #-1" (found by definition-fuzz.test.ts).
    const implicit = expectIssue(
      base({ steps: [t("a", null, { when: { ref: "steps.b.status", eq: "completed" } }), t("b")] }),
      "CYCLE",
      { path: ["steps", 0, "when"] },
    );
    expect(implicit.message).toContain('"a" comes before "b" in array order');
    expect(implicit.message).not.toContain("#-1");
    expect(implicit.edgeIndex).toBeUndefined();
  });

  it("UNREACHABLE_STEP for steps only reachable through a cycle or a return", () => {
    expectIssue(
      base({
        steps: [t("a"), t("b"), t("c")],
        edges: [
          { from: "a", to: "b" },
          { from: "b", to: "a" },
          { from: "b", to: "c" },
        ],
      }),
      "UNREACHABLE_STEP",
      { stepId: "c", path: ["steps", 2] },
    );
    expectIssue(
      base({
        steps: [{ id: "r", type: "return", config: {} }, t("x")],
        edges: [{ from: "r", to: "x" }],
      }),
      "UNREACHABLE_STEP",
      { stepId: "x" },
    );
  });

  it("ISOLATED_STEP warns about a step without edges when edges are given", () => {
    expectIssue(
      base({ steps: [t("a"), t("b"), t("lonely")], edges: [{ from: "a", to: "b" }] }),
      "ISOLATED_STEP",
      { stepId: "lonely", severity: "warning" },
    );
  });

  it("RETURN_HAS_OUTGOING_EDGES, explicit or by array order", () => {
    expectIssue(
      base({
        steps: [{ id: "r", type: "return", config: {} }, t("x")],
        edges: [{ from: "r", to: "x" }],
      }),
      "RETURN_HAS_OUTGOING_EDGES",
      { stepId: "r", path: ["edges", 0] },
    );
    expectIssue(
      base({ steps: [t("a"), { id: "r", type: "return", config: {} }, t("b")] }),
      "RETURN_HAS_OUTGOING_EDGES",
      { stepId: "r", message: /"b" would never run; move the return last or add edges/ },
    );
  });

  it("ON_FAILURE_IGNORED on an error-port edge", () => {
    expectIssue(
      base({
        steps: [t("a"), t("b")],
        edges: [{ from: "a", to: "b", port: "error", onFailure: "continue" }],
      }),
      "ON_FAILURE_IGNORED",
      { severity: "warning", path: ["edges", 0, "onFailure"] },
    );
  });
});

describe("references", () => {
  it("INVALID_TEMPLATE and UNKNOWN_TEMPLATE_ROOT point at the field", () => {
    expectIssue(
      base({ steps: [t("a", { x: ["ok", "{{ input.v"] })], inputs: { v: { type: "string" } } }),
      "INVALID_TEMPLATE",
      {
        path: ["steps", 0, "config", "value", "x", 1],
        stepId: "a",
        message: /Step "a" \(transform\): config.value.x\[1\]: Unclosed "\{\{"/,
      },
    );
    expectIssue(base({ steps: [t("a", "{{ env.HOME }}")] }), "UNKNOWN_TEMPLATE_ROOT", {
      message: /Unknown reference root "env"/,
    });
    expectIssue(base({ steps: [t("a")], output: "{{ steps.a.output" }), "INVALID_TEMPLATE", {
      path: ["output"],
    });
    expectIssue(
      base({
        steps: [t("a", null, { when: { ref: "{{ input.x }}" } })],
        inputs: { x: { type: "string" } },
      }),
      "INVALID_TEMPLATE",
      { path: ["steps", 0, "when", "ref"], message: /bare path/ },
    );
  });

  it("UNKNOWN_STEP_REFERENCE with a suggestion", () => {
    expectIssue(
      base({ steps: [t("fetch"), t("use", "{{ steps.fetsh.output.data }}")] }),
      "UNKNOWN_STEP_REFERENCE",
      {
        path: ["steps", 1, "config", "value"],
        stepId: "use",
        message:
          'Step "use" (transform): config.value references {{ steps.fetsh.output.data }}, but there is no step "fetsh". Did you mean "fetch"?',
      },
    );
    expectIssue(
      base({ steps: [t("a")], output: "{{ steps.zzz.output }}" }),
      "UNKNOWN_STEP_REFERENCE",
      { path: ["output"] },
    );
  });

  it("UNKNOWN_INPUT_REFERENCE and UNKNOWN_VARIABLE_REFERENCE list what is declared", () => {
    expectIssue(
      base({ inputs: { version: { type: "string" } }, steps: [t("a", "{{ input.verson }}")] }),
      "UNKNOWN_INPUT_REFERENCE",
      { message: /declares no input "verson" \(declared: version\)\. Did you mean "version"\?/ },
    );
    expectIssue(base({ steps: [t("a", "{{ vars.env }}")] }), "UNKNOWN_VARIABLE_REFERENCE", {
      message: /no variable "env" \(it declares none\)/,
    });
    expectIssue(
      base({ steps: [t("a", null, { when: { ref: "input.flag" } })] }),
      "UNKNOWN_INPUT_REFERENCE",
      { path: ["steps", 0, "when", "ref"] },
    );
  });

  it("REFERENCE_NOT_UPSTREAM for siblings, downstream steps and self references", () => {
    //   a ──> b      a ──> c      (c reads b, which may not have finished)
    expectIssue(
      base({
        steps: [t("a"), t("b"), t("c", "{{ steps.b.output.data }}")],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "c" },
        ],
      }),
      "REFERENCE_NOT_UPSTREAM",
      {
        stepId: "c",
        message:
          /"b" is not upstream of "c", so it may not have finished; add an edge path from "b" to "c"/,
      },
    );
    expectIssue(base({ steps: [t("a", "{{ steps.a.output }}")] }), "REFERENCE_NOT_UPSTREAM", {
      message: /its own step/,
    });
    expectIssue(
      base({ steps: [t("a", "{{ steps.b.status }}"), t("b")] }),
      "REFERENCE_NOT_UPSTREAM",
      { stepId: "a" },
    );
  });

  it("a reference in `when` is a dependency, not an error", () => {
    const result = validateDefinition(
      base({
        steps: [t("a"), t("b"), t("c", null, { when: { ref: "steps.b.output.data" } })],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "c" },
        ],
      }),
    );
    expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
  });

  it("loop bodies see outer upstream steps, loop.item and their own upstream steps", () => {
    const loop = {
      id: "each",
      type: "loop",
      config: {
        items: "{{ steps.list.output.data }}",
        body: {
          steps: [
            t("one", "{{ loop.item }} {{ loop.index }} {{ steps.list.output.data }}"),
            t("two", "{{ steps.one.output.data }}"),
          ],
        },
      },
    };
    const result = validateDefinition(
      base({ steps: [t("list", [1, 2]), loop, t("after", "{{ steps.each.output.data }}")] }),
    );
    expect(result.issues).toEqual([]);
  });

  it("REFERENCE_NOT_UPSTREAM inside loop bodies", () => {
    const loop = (body: unknown[]) => ({
      id: "each",
      type: "loop",
      config: { items: [1], body: { steps: body } },
    });
    expectIssue(
      base({ steps: [loop([t("x", "{{ steps.each.output }}")])] }),
      "REFERENCE_NOT_UPSTREAM",
      { message: /the loop that contains it/ },
    );
    expectIssue(
      base({
        steps: [t("a"), loop([t("x", "{{ steps.later.output }}")]), t("later")],
        edges: [
          { from: "a", to: "each" },
          { from: "a", to: "later" },
        ],
      }),
      "REFERENCE_NOT_UPSTREAM",
      { message: /"later" is not upstream of loop "each"/ },
    );
  });

  it("REFERENCE_INTO_LOOP_BODY from outer steps and the output", () => {
    const loop = {
      id: "each",
      type: "loop",
      config: { items: [1], body: { steps: [t("inner")] } },
    };
    expectIssue(
      base({ steps: [loop, t("after", "{{ steps.inner.output }}")] }),
      "REFERENCE_INTO_LOOP_BODY",
      { stepId: "after", message: /inside the body of loop "each".*steps\.each\.output\.data/ },
    );
    expectIssue(
      base({ steps: [loop], output: "{{ steps.inner.output }}" }),
      "REFERENCE_INTO_LOOP_BODY",
      { path: ["output"] },
    );
  });

  it("LOOP_REFERENCE_OUTSIDE_LOOP, including a loop's own items", () => {
    expectIssue(base({ steps: [t("a", "{{ loop.item }}")] }), "LOOP_REFERENCE_OUTSIDE_LOOP", {
      stepId: "a",
    });
    expectIssue(
      base({
        steps: [
          { id: "each", type: "loop", config: { items: "{{ loop.item }}", workflow: "child" } },
        ],
      }),
      "LOOP_REFERENCE_OUTSIDE_LOOP",
      { path: ["steps", 0, "config", "items"] },
    );
  });

  describe("loop variables (state, batches, items)", () => {
    const body = (...steps: unknown[]) => ({ steps });
    const loopOf = (config: Record<string, unknown>, ...steps: unknown[]) => ({
      id: "each",
      type: "loop",
      config: { items: [1, 2, 3], body: body(...(steps.length ? steps : [t("x", 1)])), ...config },
    });

    it("accepts state + stateFrom, batchSize and loop.items where they exist", () => {
      const result = validateDefinition(
        base({
          steps: [
            loopOf(
              { state: { total: 0 }, stateFrom: "add" },
              t("add", { total: "{{ loop.state.total }}", n: "{{ loop.items.length }}" }),
            ),
            {
              id: "batched",
              type: "loop",
              config: {
                items: [1, 2, 3],
                batchSize: 2,
                body: body(t("b", { b: "{{ loop.batch }}", i: "{{ loop.index }}" })),
              },
            },
          ],
        }),
      );
      expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
    });

    it("refuses a state loop with concurrency > 1, naming the loop", () => {
      expectIssue(
        base({ steps: [loopOf({ state: 0, stateFrom: "x", concurrency: 4 })] }),
        "INVALID_STEP_CONFIG",
        {
          stepId: "each",
          path: ["steps", 0, "config", "concurrency"],
          message: /runs one iteration at a time.*got 4/,
        },
      );
    });

    it("needs state and stateFrom together, stateFrom naming a body step", () => {
      expectIssue(base({ steps: [loopOf({ state: 0 })] }), "INVALID_STEP_CONFIG", {
        path: ["steps", 0, "config", "stateFrom"],
      });
      expectIssue(base({ steps: [loopOf({ stateFrom: "x" })] }), "INVALID_STEP_CONFIG", {
        path: ["steps", 0, "config", "state"],
      });
      expectIssue(
        base({ steps: [loopOf({ state: 0, stateFrom: "nope" })] }),
        "INVALID_STEP_CONFIG",
        {
          stepId: "each",
          message: /"nope", which is not a step of this loop's body \("x"\)/,
        },
      );
    });

    it("bounds iterations: more than 1000 items needs a batchSize", () => {
      expectIssue(base({ steps: [loopOf({ maxItems: 5000 })] }), "INVALID_STEP_CONFIG", {
        message: /maxItems is at most 1000.*set a batchSize/,
      });
      expectIssue(
        base({ steps: [loopOf({ maxItems: 5000, batchSize: 2 })] }),
        "INVALID_STEP_CONFIG",
        { message: /raise batchSize to at least 5/ },
      );
      const ok = validateDefinition(base({ steps: [loopOf({ maxItems: 10_000, batchSize: 10 })] }));
      expect(ok.issues.filter((i) => i.severity === "error")).toEqual([]);
    });

    it("LOOP_VARIABLE_UNAVAILABLE: loop.batch, loop.item and loop.state the loop does not have", () => {
      expectIssue(
        base({ steps: [loopOf({}, t("x", "{{ loop.batch }}"))] }),
        "LOOP_VARIABLE_UNAVAILABLE",
        { stepId: "x", message: /loop "each" has no batchSize/ },
      );
      expectIssue(
        base({ steps: [loopOf({ batchSize: 2 }, t("x", "{{ loop.item }}"))] }),
        "LOOP_VARIABLE_UNAVAILABLE",
        { stepId: "x", message: /runs in batches/ },
      );
      expectIssue(
        base({ steps: [loopOf({}, t("x", "{{ loop.state }}"))] }),
        "LOOP_VARIABLE_UNAVAILABLE",
        { stepId: "x", message: /declares no "state"/ },
      );
      expectIssue(base({ steps: [t("a", "{{ loop.items }}")] }), "LOOP_REFERENCE_OUTSIDE_LOOP", {
        stepId: "a",
      });
    });
  });

  it("does not scan code sources or literal proposed definitions for templates", () => {
    const code = {
      id: "c",
      type: "code",
      config: { source: "export default function () { return `{{ not.a.template }}`; }" },
    };
    const propose = {
      id: "p",
      type: "propose_change",
      config: {
        summary: "x",
        definition: {
          schemaVersion: 1,
          name: "n",
          steps: [t("z", "{{ input.q }}")],
          inputs: { q: { type: "string" } },
        },
      },
    };
    const result = validateDefinition(
      base({ constraints: { allowSelfModification: true }, steps: [code, propose] }),
    );
    expect(result.issues).toEqual([]);
  });

  it("INVALID_SECRET_REFERENCE and SECRET_NOT_ALLOWED", () => {
    expectIssue(
      base({
        steps: [
          {
            id: "h",
            type: "http",
            config: { url: "https://x.example", headers: { a: "{{ secrets.token }}" } },
          },
        ],
      }),
      "INVALID_SECRET_REFERENCE",
      { path: ["steps", 0, "config", "headers", "a"] },
    );
    const ok = validateDefinition(
      base({
        steps: [
          {
            id: "h",
            type: "http",
            config: { url: "https://x.example", headers: { a: "Bearer {{ secrets.TOKEN }}" } },
          },
        ],
      }),
    );
    expect(ok.issues).toEqual([]);
    expectIssue(base({ steps: [t("leak", "{{ secrets.TOKEN }}")] }), "SECRET_NOT_ALLOWED", {
      stepId: "leak",
      message:
        /transform steps cannot use secrets, so secret values never end up in stored inputs or outputs/,
    });
    expectIssue(
      base({
        steps: [
          {
            id: "n",
            type: "notify",
            config: {
              channel: "webhook",
              target: "https://x.example",
              message: "{{ secrets.TOKEN }}",
            },
          },
        ],
      }),
      "SECRET_NOT_ALLOWED",
      { message: /only be used in config.target of a notify step/ },
    );
    expectIssue(
      base({
        steps: [t("a", null, { when: { ref: "input.x", eq: "{{ secrets.TOKEN }}" } })],
        inputs: { x: { type: "string" } },
      }),
      "SECRET_NOT_ALLOWED",
      { path: ["steps", 0, "when", "eq"] },
    );
    expectIssue(
      base({ steps: [t("a")], output: { token: "{{ secrets.TOKEN }}" } }),
      "SECRET_NOT_ALLOWED",
      { path: ["output", "token"] },
    );
  });
});

describe("policy and advice", () => {
  const script = { id: "sh", type: "script", config: { command: "echo hi" } };

  //   start → fetch → charge (http POST)        (workspace policy: http_write needs an approval)
  it("APPROVAL_REQUIRED from the workspace's required approvals, naming the step and the path", () => {
    const steps = [
      { id: "fetch", type: "transform", config: { value: 1 } },
      { id: "charge", type: "http", config: { method: "POST", url: "https://pay.example/c" } },
    ];
    expectIssue(
      base({ steps }),
      "APPROVAL_REQUIRED",
      {
        path: ["steps", 1],
        message:
          /^step "charge" \(http POST\) is reachable without an approval: start → fetch → charge\./,
      },
      { requiredApprovals: ["http_write"] },
    );
    // Without the policy, or with the gate in front, nothing is said.
    expect(issuesOf(base({ steps })).some((i) => i.code === "APPROVAL_REQUIRED")).toBe(false);
    const gated = [steps[0], { id: "ask", type: "approval", config: { prompt: "Pay?" } }, steps[1]];
    expect(
      issuesOf(base({ steps: gated }), { requiredApprovals: ["http_write"] }).some(
        (i) => i.code === "APPROVAL_REQUIRED",
      ),
    ).toBe(false);
  });

  it("FORBIDDEN_STEP_TYPE from the definition and from the workspace", () => {
    expectIssue(
      base({ steps: [script], constraints: { forbiddenStepTypes: ["script"] } }),
      "FORBIDDEN_STEP_TYPE",
      {
        path: ["steps", 0, "type"],
        message: /forbidden by this workflow's constraints\.forbiddenStepTypes/,
      },
    );
    expectIssue(
      base({ steps: [script] }),
      "FORBIDDEN_STEP_TYPE",
      { message: /forbidden by the workspace policy/ },
      { forbiddenStepTypes: ["script"] },
    );
    const nested = { id: "each", type: "loop", config: { items: [1], body: { steps: [script] } } };
    const propose = {
      id: "p",
      type: "propose_change",
      config: { summary: "tweak", patch: [{ op: "replace", path: "/name", value: "x" }] },
    };
    expectIssue(
      base({ steps: [propose], constraints: { allowSelfModification: true } }),
      "NEEDS_SAVED_WORKFLOW",
      { path: ["steps", 0, "type"], message: /need a saved workflow/ },
      { inline: true },
    );
    // Approval and task steps run inline (their rows carry no workflow).
    const gates = validateDefinition(
      base({
        steps: [
          { id: "ok", type: "approval", config: { prompt: "Go?" } },
          {
            id: "do",
            type: "task",
            config: { instructions: "Do it", assignee: { roles: ["editor"] } },
          },
        ],
      }),
      { inline: true },
    );
    expect(gates.issues.filter((i) => i.severity === "error")).toEqual([]);
    expectIssue(
      base({ steps: [nested] }),
      "FORBIDDEN_STEP_TYPE",
      { path: ["steps", 0, "config", "body", "steps", 0, "type"] },
      { forbiddenStepTypes: ["script"] },
    );
  });

  it("TOO_MANY_STEPS counts loop bodies and honours the workspace limit", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => t(`s${i}`));
    expectIssue(base({ steps: many(51) }), "TOO_MANY_STEPS", {
      path: ["constraints", "maxSteps"],
      message: /defines 51 steps, more than constraints.maxSteps \(50\)/,
    });
    const loop = {
      id: "each",
      type: "loop",
      config: { items: [1], body: { steps: many(5).map((s) => ({ ...s, id: `b_${s.id}` })) } },
    };
    expectIssue(base({ steps: [...many(46), loop] }), "TOO_MANY_STEPS", {
      message: /defines 52 steps \(5 inside loop bodies\)/,
    });
    expectIssue(
      base({ steps: many(20), constraints: { maxSteps: 100 } }),
      "TOO_MANY_STEPS",
      { path: ["steps"], message: /workspace limit of 10/ },
      { maxSteps: 10 },
    );
    expectIssue(base({ steps: many(1001), constraints: { maxSteps: 1000 } }), "TOO_MANY_STEPS", {
      path: ["steps"],
      message: /hard limit is 1000/,
    });
  });

  it("SELF_MODIFICATION_DISABLED unless allowSelfModification", () => {
    const propose = {
      id: "p",
      type: "propose_change",
      config: { summary: "tweak", patch: [{ op: "replace", path: "/name", value: "x" }] },
    };
    expectIssue(base({ steps: [propose] }), "SELF_MODIFICATION_DISABLED", {
      stepId: "p",
      message: /allowSelfModification/,
    });
    expect(
      validateDefinition(base({ steps: [propose], constraints: { allowSelfModification: true } }))
        .ok,
    ).toBe(true);
  });

  it("INVALID_PROPOSED_DEFINITION reports the inner problem at its path", () => {
    const propose = {
      id: "p",
      type: "propose_change",
      config: {
        summary: "x",
        definition: { schemaVersion: 1, name: "n", steps: [t("a"), t("a")] },
      },
    };
    expectIssue(
      base({ steps: [propose], constraints: { allowSelfModification: true } }),
      "INVALID_PROPOSED_DEFINITION",
      {
        path: ["steps", 0, "config", "definition", "steps", 1, "id"],
        message: /the proposed definition is invalid — Step id "a" is used more than once/,
      },
    );
  });

  it("checks tool steps against the workspace's MCP servers and their cached tool lists", () => {
    const mcpServers = {
      github: {
        tools: [
          { name: "search", required: ["query"] },
          { name: "whoami", required: [] },
        ],
      },
      fresh: { tools: null },
    };
    const tool = (config: Record<string, unknown>) =>
      base({ steps: [{ id: "call", type: "tool", config }] });
    expectIssue(
      tool({ server: "githib", tool: "search" }),
      "UNKNOWN_MCP_SERVER",
      {
        path: ["steps", 0, "config", "server"],
        stepId: "call",
        message:
          /no MCP server named "githib" is configured in this workspace \(configured: github, fresh\).*Did you mean "github"\?/,
      },
      { mcpServers },
    );
    expectIssue(
      tool({ server: "github", tool: "serch", arguments: { query: "x" } }),
      "UNKNOWN_MCP_TOOL",
      {
        path: ["steps", 0, "config", "tool"],
        message: /has no tool named "serch" \(it offers: search, whoami.*Did you mean "search"\?/,
      },
      { mcpServers },
    );
    expectIssue(
      tool({ server: "github", tool: "search", arguments: {} }),
      "MISSING_TOOL_ARGUMENT",
      {
        path: ["steps", 0, "config", "arguments", "query"],
        message: /requires the argument "query"/,
      },
      { mcpServers },
    );
    const ok = (config: Record<string, unknown>, options?: ValidateOptions) =>
      expect(issuesOf(tool(config), options).filter((i) => i.severity === "error")).toEqual([]);
    ok({ server: "github", tool: "search", arguments: { query: "{{ run.id }}" } }, { mcpServers });
    // An uncached list checks only the server; no workspace context checks nothing.
    ok({ server: "fresh", tool: "anything" }, { mcpServers });
    ok({ server: "anywhere", tool: "anything" });
  });

  it("PRIVATE_ADDRESS warns about literal private, loopback and metadata hosts", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://localhost:3000",
      "http://10.1.2.3",
      "http://[::1]/",
      "http://192.168.0.1",
      "http://metadata.google.internal",
      // Forms the old regex copy missed; the SSRF guard's classifier catches them.
      "http://[::ffff:7f00:1]/",
      "http://[2002:a00:1::]/",
      "http://100.100.100.200/",
      "http://0x7f.1/",
    ]) {
      expectIssue(
        base({ steps: [{ id: "h", type: "http", config: { url } }] }),
        "PRIVATE_ADDRESS",
        { severity: "warning", path: ["steps", 0, "config", "url"] },
      );
    }
    for (const url of ["https://api.example.com", "http://8.8.8.8/", "http://[2606:4700::1111]/"])
      expect(issuesOf(base({ steps: [{ id: "h", type: "http", config: { url } }] }))).toEqual([]);
  });

  it("WAIT_EXCEEDS_DEADLINE when a gate, event wait or delay outlasts the run deadline", () => {
    expectIssue(
      base({ steps: [{ id: "a", type: "approval", config: { prompt: "?", timeout: "24h" } }] }),
      "WAIT_EXCEEDS_DEADLINE",
      {
        severity: "warning",
        path: ["steps", 0, "config", "timeout"],
        message: /\(1d\) is longer than the run's deadline.*= 1h/,
      },
    );
    expectIssue(
      base({ steps: [{ id: "d", type: "delay", config: { duration: "2h" } }] }),
      "WAIT_EXCEEDS_DEADLINE",
      { path: ["steps", 0, "config", "duration"] },
    );
    // Within the deadline (raised), or a template: nothing to say.
    expect(
      issuesOf(
        base({
          constraints: { timeoutMs: 2 * 86_400_000 },
          steps: [{ id: "a", type: "approval", config: { prompt: "?", timeout: "24h" } }],
        }),
      ).filter((i) => i.code === "WAIT_EXCEEDS_DEADLINE"),
    ).toEqual([]);
    expect(
      issuesOf(
        base({ steps: [{ id: "d", type: "delay", config: { duration: "{{ input.wait }}" } }] }),
      ).filter((i) => i.code === "WAIT_EXCEEDS_DEADLINE"),
    ).toEqual([]);
  });

  describe("MAY_READ_SKIPPED_STEP", () => {
    //   check ─true──▶ yes ─▶ later(reads yes)
    //         ─false─▶ no  ─▶ join(reads yes, no) ◀─ yes
    const cond = { id: "check", type: "condition", config: { condition: { ref: "input.x" } } };
    const t = (id: string, value: unknown) => ({ id, type: "transform", config: { value } });
    const codes = (d: Record<string, unknown>) =>
      issuesOf(base(d))
        .filter((i) => i.code === "MAY_READ_SKIPPED_STEP")
        .map((i) => i.path.join("."));

    it("warns when a reader or the output may run without the step it reads", () => {
      expect(
        codes({
          inputs: { x: { type: "boolean" } },
          steps: [
            cond,
            t("yes", 1),
            t("no", 2),
            t("later", "{{ steps.yes.output.data }}"),
            t("join", { a: "{{ steps.yes.output.data }}", b: "{{ steps.no.output.data }}" }),
          ],
          edges: [
            { from: "check", port: "true", to: "yes" },
            { from: "check", port: "false", to: "no" },
            { from: "yes", to: "later" },
            { from: "yes", to: "join" },
            { from: "no", to: "join" },
          ],
          output: "{{ steps.yes.output.data }}",
        }),
      ).toEqual(["steps.4.config.value.a", "steps.4.config.value.b", "output"]);
    });

    it("is quiet when branches rejoin, within a branch, and for steps that always run", () => {
      expect(
        codes({
          inputs: { x: { type: "boolean" } },
          steps: [
            cond,
            t("yes", "{{ steps.check.output.data }}"),
            t("no", 2),
            t("join", 3),
            t("after", "{{ steps.join.output.data }}"),
          ],
          edges: [
            { from: "check", port: "true", to: "yes" },
            { from: "check", port: "false", to: "no" },
            { from: "yes", to: "join" },
            { from: "no", to: "join" },
            { from: "join", to: "after" },
          ],
          output: { join: "{{ steps.join.output.data }}", after: "{{ steps.after.output.data }}" },
        }),
      ).toEqual([]);
    });

    it("a step with a when may be skipped; a join that also has an always-taken edge still runs", () => {
      //   a ─▶ maybe [when] ─▶ reader ◀─ a
      expect(
        codes({
          inputs: { go: { type: "boolean" } },
          steps: [
            t("a", 1),
            { ...t("maybe", 2), when: { ref: "input.go", eq: true } },
            t("reader", "{{ steps.maybe.output.data }}"),
          ],
          edges: [
            { from: "a", to: "maybe" },
            { from: "a", to: "reader" },
            { from: "maybe", to: "reader" },
          ],
        }),
      ).toEqual(["steps.2.config.value"]);
    });
  });

  it("IGNORED_FIELD for timeoutMs on waiting steps", () => {
    expectIssue(
      base({ steps: [{ id: "a", type: "approval", config: { prompt: "?" }, timeoutMs: 5000 }] }),
      "IGNORED_FIELD",
      { severity: "warning", message: /use config.timeout/ },
    );
  });

  it("TEMPLATE_IN_COMMAND warns once per script step", () => {
    const issues = issuesOf(
      base({
        inputs: { v: { type: "string" } },
        steps: [
          { id: "sh", type: "script", config: { command: "deploy {{ input.v }} {{ input.v }}" } },
        ],
      }),
    );
    const warnings = issues.filter((i) => i.code === "TEMPLATE_IN_COMMAND");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/pass values through env instead/);
  });
});

describe("all issues at once", () => {
  it("reports schema, graph, reference and policy problems together", () => {
    const def = {
      schemaVersion: 1,
      name: "Broken",
      extra: true,
      steps: [
        { id: "a", type: "http", config: { url: "ftp://nope" } },
        { id: "b", type: "transform", config: { value: "{{ steps.zz.output }} {{ input.q }}" } },
        { id: "b", type: "transform", config: { value: 1 } },
        { id: "c", type: "script", config: { command: "x" } },
        { id: "d", type: "nope" },
      ],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "a" },
        { from: "c", to: "ghost" },
      ],
    };
    const codes = new Set(issuesOf(def, { forbiddenStepTypes: ["script"] }).map((i) => i.code));
    for (const code of [
      "UNKNOWN_KEY",
      "INVALID_STEP_CONFIG",
      "UNKNOWN_STEP_TYPE",
      "DUPLICATE_STEP_ID",
      "CYCLE",
      "UNKNOWN_EDGE_TARGET",
      "UNKNOWN_STEP_REFERENCE",
      "UNKNOWN_INPUT_REFERENCE",
      "FORBIDDEN_STEP_TYPE",
    ] as const) {
      expect(codes, code).toContain(code);
    }
  });
});

describe("COMPARISON_TYPE_MISMATCH", () => {
  // The approval-gate incident: `100` saved as text under `gt`, so 250 > "100" was false.
  const gate = (condition: unknown, when?: unknown) =>
    base({
      inputs: { amount: { type: "number", required: true }, note: { type: "string" } },
      steps: [
        { id: "big", type: "condition", config: { condition } },
        { id: "ship", type: "transform", config: { value: 1 }, ...(when ? { when } : {}) },
      ],
      edges: [{ from: "big", port: "false", to: "ship" }],
    });
  const mismatches = (input: unknown) =>
    issuesOf(input)
      .filter((i) => i.code === "COMPARISON_TYPE_MISMATCH")
      .map((i) => [i.path.join("."), i.severity]);

  it("warns (never errs) on a number input compared with text, naming the fix", () => {
    const issue = expectIssue(
      gate({ ref: "input.amount", gt: "100" }),
      "COMPARISON_TYPE_MISMATCH",
      {
        path: ["steps", 0, "config", "condition", "gt"],
        stepId: "big",
        severity: "warning",
      },
    );
    expect(issue.message).toBe(
      'Step "big" (condition): config.condition.gt compares input.amount (a number) with the text "100": > compares two numbers or two texts, so this is always false; write 100 without quotes.',
    );
    expect(validateDefinition(gate({ ref: "input.amount", gt: "100" })).ok).toBe(true);
  });

  it("checks when, nested groups, eq and in, text refs given numbers, and numeric text under >", () => {
    expect(
      mismatches(
        gate(
          {
            all: [
              { ref: "input.amount", eq: "5" },
              { not: { ref: "input.note", lte: 3 } },
              { ref: "input.amount", in: [1, "2"] },
              { ref: "trigger.data.total", gte: "10" },
            ],
          },
          { ref: "steps.big.output.data", eq: "true" },
        ),
      ),
    ).toEqual([
      ["steps.0.config.condition.all.0.eq", "warning"],
      ["steps.0.config.condition.all.1.not.lte", "warning"],
      ["steps.0.config.condition.all.2.in.1", "warning"],
      ["steps.0.config.condition.all.3.gte", "warning"],
      ["steps.1.when.eq", "warning"],
    ]);
  });

  it("is quiet for matching types, text ordering (ISO dates), unknown refs and templates", () => {
    expect(
      mismatches(
        gate({
          all: [
            { ref: "input.amount", gt: 100 },
            { ref: "input.note", gt: "2024-01-01" },
            { ref: "trigger.data.when", lt: "2024-01-01" },
            { ref: "trigger.data.x", eq: "100" },
            { ref: "input.amount", gt: "{{ input.note }}" },
          ],
        }),
      ),
    ).toEqual([]);
  });
});

afterAll(() => {
  // Needs the workspace's members, so the publish service raises it: gate-deciders.test.ts.
  seen.add("NO_OTHER_APPROVER");
  const missing = ISSUE_CODES.filter((code) => !seen.has(code));
  expect(missing, `issue codes without a test: ${missing.join(", ")}`).toEqual([]);
});

import { describe, expect, it } from "vitest";
import { validateDefinition } from "@/lib/workflow";
import type { EditorIssue } from "@/components/workflows/issue-list";
import { configFields, constraintFields, inputSpecFields, runPolicyFields } from "./step-schema";
import { errorsUnder, issuesAt, shortMessage, stepIssues } from "./issues";
import { STEP_TYPES } from "@/lib/workflow/steps";

const def = {
  schemaVersion: 1,
  name: "x",
  constraints: { maxParallel: 99 },
  steps: [
    { id: "a", type: "transform", config: { value: "{{ steps.zz.output }}" } },
    {
      id: "each",
      type: "loop",
      config: {
        items: [1],
        body: {
          steps: [
            {
              id: "call",
              type: "http",
              config: { url: "nope" },
              retry: { maxAttempts: 40 },
              when: { all: [{ ref: "x" }] },
            },
          ],
        },
      },
    },
  ],
  edges: [{ from: "a", to: "each", port: "nope" }],
};

describe("validator issues → inspector fields", () => {
  const issues = validateDefinition(def).issues as EditorIssue[];

  it("places a body step's issues on its fields, messages without the step prefix", () => {
    const placed = stepIssues(issues, def, "call");
    expect(Object.keys(placed.byField).sort()).toEqual([
      "config.url",
      "retry.maxAttempts",
      "when.all.0.ref",
    ]);
    expect(placed.byField["config.url"]).toMatch(/^"nope" is not an absolute URL/);
    expect(errorsUnder(placed.byField, "when")).toEqual({
      "all.0.ref": placed.byField["when.all.0.ref"],
    });
  });

  it("issues about a step that point elsewhere (its edges) are listed as general", () => {
    const edgeIssue = issues.find((i) => i.code === "UNKNOWN_PORT")!;
    expect(edgeIssue).toBeDefined();
    expect(stepIssues(issues, def, "a").byField).toHaveProperty("config.value");
    // The validator names the edge's target step.
    const placed = stepIssues(issues, def, edgeIssue.stepId!);
    expect(placed.general.map((i) => i.code)).toContain("UNKNOWN_PORT");
    expect(placed.byField).toEqual({});
    expect(issuesAt(issues, ["edges", 0]).byField).toHaveProperty("port");
  });

  it("top-level fields (constraints) map from the root", () => {
    expect(issuesAt(issues, []).byField).toHaveProperty("constraints.maxParallel");
  });

  it("shortMessage drops the step prefix and a repeated field path", () => {
    expect(shortMessage('Step "a" (http): config.url: bad', ["config", "url"])).toBe("bad");
    expect(shortMessage('Step "a" (http): config.value references x', ["config", "value"])).toBe(
      "config.value references x",
    );
    expect(shortMessage('Step "a" (x): when.all[0].ref: bad', ["when", "all", 0, "ref"])).toBe(
      "bad",
    );
    expect(shortMessage("plain", [])).toBe("plain");
  });
});

describe("inspector field descriptions come from the workflow JSON Schema", () => {
  it("every step type has a config form; the loop body is left to the canvas", () => {
    for (const type of STEP_TYPES) {
      const fields = configFields(type);
      if (type === "return" || type === "transform") expect(fields.length).toBe(1);
      else expect(fields.length).toBeGreaterThan(0);
      expect(fields.every((f) => f.path[0] === "config")).toBe(true);
    }
    expect(configFields("loop").map((f) => f.name)).not.toContain("body");
    const loop = Object.fromEntries(configFields("loop").map((f) => [f.name, f.kind]));
    expect(loop).toMatchObject({ batchSize: "number", stateFrom: "text", state: "json" });
    expect(configFields("condition")[0]).toMatchObject({ kind: "condition" });
    expect(configFields("nope")).toEqual([]);
  });

  it("retry/timeout, constraints and input specs", () => {
    expect(runPolicyFields().map((f) => f.name)).toEqual(["retry", "timeoutMs"]);
    expect(constraintFields().map((f) => f.path.join("."))).toContain(
      "constraints.allowSelfModification",
    );
    expect(inputSpecFields().map((f) => f.name)).toEqual([
      "type",
      "required",
      "default",
      "description",
      "enum",
    ]);
  });
});

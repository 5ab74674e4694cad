import { describe, expect, it } from "vitest";
import {
  Constraints,
  InputSpec,
  isValidTimezone,
  Layout,
  TOP_LEVEL_KEYS,
  WorkflowDefinition,
  type WorkflowDefinitionInput,
} from "./definition";
import { Step } from "./steps";

const minimal: WorkflowDefinitionInput = {
  schemaVersion: 1,
  name: "  Minimal  ",
  steps: [{ id: "a", type: "transform", config: { value: 1 } }],
};

describe("WorkflowDefinition", () => {
  it("fills every default", () => {
    const def = WorkflowDefinition.parse(minimal);
    expect(def).toEqual({
      schemaVersion: 1,
      name: "Minimal",
      inputs: {},
      variables: {},
      constraints: {
        allowSelfModification: false,
        maxSteps: 50,
        timeoutMs: 3600000,
        maxParallel: 4,
        forbiddenStepTypes: [],
        maxConcurrentRuns: 10,
        overflow: "queue",
      },
      timezone: "UTC",
      steps: [
        {
          id: "a",
          type: "transform",
          config: { value: 1 },
          retry: { maxAttempts: 1, backoffMs: 1000 },
        },
      ],
    });
  });

  it("is strict about unknown top-level keys", () => {
    const result = WorkflowDefinition.safeParse({ ...minimal, nmae: "x" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["nmae"] });
    expect(TOP_LEVEL_KEYS).toEqual([
      "schemaVersion",
      "name",
      "description",
      "inputs",
      "variables",
      "constraints",
      "timezone",
      "repository",
      "steps",
      "edges",
      "output",
      "layout",
    ]);
  });

  it("only reads schemaVersion 1", () => {
    expect(WorkflowDefinition.safeParse({ ...minimal, schemaVersion: 2 }).success).toBe(false);
    expect(WorkflowDefinition.safeParse({ ...minimal, schemaVersion: "1" }).success).toBe(false);
  });

  it("parses step configs per type (discriminated by type) with defaults", () => {
    const step = Step.parse({ id: "h", type: "http", config: { url: "https://x.example" } });
    expect(step.type === "http" && step.config.method).toBe("GET");
    expect(Step.safeParse({ id: "h", type: "http", config: { value: 1 } }).success).toBe(false);
    expect(Step.parse({ id: "r", type: "return" })).toMatchObject({ config: { value: null } });
  });

  it("accepts recursive loop bodies", () => {
    const loop = {
      id: "outer",
      type: "loop",
      config: {
        items: [1],
        body: {
          steps: [
            {
              id: "inner",
              type: "loop",
              config: {
                items: "{{ loop.item }}",
                body: {
                  steps: [{ id: "leaf", type: "transform", config: { value: "{{ loop.item }}" } }],
                },
              },
            },
          ],
        },
      },
    };
    const parsed = Step.parse(loop);
    expect(parsed.type === "loop" && parsed.config.body?.steps[0]?.type).toBe("loop");
  });

  it("step ids: lower-case start, a-z 0-9 _, at most 64 characters", () => {
    for (const id of ["a", "fetch_orders", "step2", "a".repeat(64)])
      expect(Step.safeParse({ id, type: "return" }).success, id).toBe(true);
    for (const id of ["A", "2step", "_x", "has-dash", "a".repeat(65), "", "caf\u00e9"])
      expect(Step.safeParse({ id, type: "return" }).success, id).toBe(false);
  });

  it("caps constraints", () => {
    expect(Constraints.safeParse({ maxSteps: 1001 }).success).toBe(false);
    expect(Constraints.safeParse({ maxParallel: 33 }).success).toBe(false);
    expect(Constraints.safeParse({ forbiddenStepTypes: ["nope"] }).success).toBe(false);
    expect(Constraints.parse({ overflow: "coalesce" }).overflow).toBe("coalesce");
  });

  it("retry: maxAttempts 1–10; backoffMs a number or a list", () => {
    const step = (retry: unknown) => Step.safeParse({ id: "a", type: "return", retry });
    expect(step({ maxAttempts: 10, backoffMs: [1000, 2000] }).success).toBe(true);
    expect(step({ maxAttempts: 11 }).success).toBe(false);
    expect(step({ backoffMs: -1 }).success).toBe(false);
    expect(step({ backoffMs: [] }).success).toBe(false);
  });

  it("input specs check defaults and enums against the type", () => {
    expect(InputSpec.safeParse({ type: "string", enum: ["a", "b"], default: "a" }).success).toBe(
      true,
    );
    expect(InputSpec.safeParse({ type: "string", enum: ["a", 1] }).success).toBe(false);
    expect(InputSpec.safeParse({ type: "string", enum: ["a"], default: "c" }).success).toBe(false);
    expect(InputSpec.safeParse({ type: "array", default: {} }).success).toBe(false);
    expect(InputSpec.safeParse({ type: "date" }).success).toBe(false);
  });

  it("time zones are IANA names", () => {
    expect(isValidTimezone("Europe/Paris")).toBe(true);
    expect(isValidTimezone("UTC")).toBe(true);
    expect(isValidTimezone("Not/AZone")).toBe(false);
  });

  it("layout is loose (editor-owned) but typed where it matters", () => {
    expect(
      Layout.safeParse({
        positions: { a: { x: 1, y: 2, width: 100 } },
        viewport: { x: 0, y: 0, zoom: 1 },
        collapsed: ["a"],
      }).success,
    ).toBe(true);
    expect(Layout.safeParse({ positions: { a: { x: "1", y: 2 } } }).success).toBe(false);
  });
});

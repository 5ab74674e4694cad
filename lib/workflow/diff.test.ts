import { describe, expect, it } from "vitest";
import { diffDefinitions, diffValues } from "./diff";

const def = (patch: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name: "Release",
  inputs: { version: { type: "string", required: true } },
  variables: { env: "staging" },
  steps: [
    { id: "lint", type: "script", config: { command: "npm run lint" } },
    { id: "approve", type: "approval", config: { prompt: "Ship?" } },
    { id: "deploy", type: "http", config: { method: "POST", url: "https://deploy.example/api" } },
  ],
  edges: [
    { from: "lint", to: "approve" },
    { from: "approve", to: "deploy", port: "approved" },
  ],
  ...patch,
});

describe("diffDefinitions", () => {
  it("identical definitions (modulo defaults, key order and layout) give an empty diff", () => {
    const a = def();
    const b = {
      ...def({ layout: { positions: { lint: { x: 5, y: 5 } } } }),
      constraints: { maxParallel: 4 },
    };
    const diff = diffDefinitions(a, b);
    expect(diff.isEmpty).toBe(true);
    expect(diff.summary.total).toBe(0);
  });

  it("layout-only changes are empty", () => {
    expect(
      diffDefinitions(
        def({ layout: { positions: { lint: { x: 0, y: 0 } } } }),
        def({ layout: { positions: { lint: { x: 99, y: 1 } } } }),
      ).isEmpty,
    ).toBe(true);
  });

  it("reports added, removed and changed steps with field paths including config", () => {
    const after = def({
      steps: [
        {
          id: "lint",
          type: "script",
          config: { command: "npm run lint -- --max-warnings 0" },
          retry: { maxAttempts: 2 },
        },
        { id: "approve", type: "approval", config: { prompt: "Ship?" } },
        {
          id: "notify",
          type: "notify",
          config: { channel: "slack", target: "https://hooks.example/x", message: "shipped" },
        },
      ],
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", to: "notify", port: "approved" },
      ],
    });
    const diff = diffDefinitions(def(), after);
    expect(diff.steps.added.map((s) => s.id)).toEqual(["notify"]);
    expect(diff.steps.removed.map((s) => s.id)).toEqual(["deploy"]);
    expect(diff.steps.changed).toHaveLength(1);
    expect(diff.steps.changed[0]!.changes).toEqual([
      {
        path: ["config", "command"],
        before: "npm run lint",
        after: "npm run lint -- --max-warnings 0",
      },
      { path: ["retry", "maxAttempts"], before: 1, after: 2 },
    ]);
    expect(diff.edges.added).toEqual([
      { from: "approve", to: "notify", port: "approved", onFailure: "skip" },
    ]);
    expect(diff.edges.removed).toEqual([
      { from: "approve", to: "deploy", port: "approved", onFailure: "skip" },
    ]);
    expect(diff.summary).toMatchObject({
      stepsAdded: 1,
      stepsRemoved: 1,
      stepsChanged: 1,
      edgesAdded: 1,
      edgesRemoved: 1,
      edgesChanged: 0,
    });
    expect(diff.isEmpty).toBe(false);
  });

  it("an onFailure change is an edge change, identified by from + port + to", () => {
    const after = def({
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", to: "deploy", port: "approved", onFailure: "fail_run" },
      ],
    });
    const diff = diffDefinitions(def(), after);
    expect(diff.edges.changed).toEqual([
      {
        key: { from: "approve", port: "approved", to: "deploy" },
        before: expect.objectContaining({ onFailure: "skip" }),
        after: expect.objectContaining({ onFailure: "fail_run" }),
        changes: [{ path: ["onFailure"], before: "skip", after: "fail_run" }],
      },
    ]);
    expect(diff.edges.added).toEqual([]);
  });

  it("a port change is a removed edge plus an added edge", () => {
    const after = def({
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", to: "deploy", port: "rejected" },
      ],
    });
    const diff = diffDefinitions(def(), after);
    expect(diff.summary).toMatchObject({ edgesAdded: 1, edgesRemoved: 1, edgesChanged: 0 });
  });

  it("switching between an implicit chain and the same explicit edges is no change", () => {
    const chain = def({ edges: undefined });
    const explicit = def({
      edges: [
        { from: "lint", to: "approve" },
        { from: "approve", to: "deploy", port: "approved" },
      ],
    });
    expect(diffDefinitions(chain, explicit).isEmpty).toBe(true);
  });

  it("reports name, description, inputs, variables, constraints and output changes", () => {
    const after = def({
      name: "Release v2",
      description: "now documented",
      inputs: {
        version: { type: "string", required: false },
        dryRun: { type: "boolean", default: false },
      },
      variables: {},
      constraints: { maxParallel: 2, forbiddenStepTypes: ["script"] },
      output: "{{ steps.deploy.output.data }}",
    });
    const diff = diffDefinitions(def(), after);
    expect(diff.metadata).toEqual([
      { path: ["name"], before: "Release", after: "Release v2" },
      { path: ["description"], before: undefined, after: "now documented" },
      { path: ["output"], before: undefined, after: "{{ steps.deploy.output.data }}" },
    ]);
    expect(diff.inputs).toEqual({
      added: ["dryRun"],
      removed: [],
      changed: [{ name: "version", changes: [{ path: ["required"], before: true, after: false }] }],
    });
    expect(diff.variables).toEqual({ added: [], removed: ["env"], changed: [] });
    expect(diff.constraints).toEqual([
      { path: ["forbiddenStepTypes"], before: [], after: ["script"] },
      { path: ["maxParallel"], before: 4, after: 2 },
    ]);
    expect(diff.summary).toMatchObject({
      metadataChanged: 3,
      inputsChanged: 2,
      variablesChanged: 1,
      constraintsChanged: 2,
    });
  });

  it("diffs loop bodies by step id instead of as one opaque field", () => {
    const loop = (bodySteps: unknown[], concurrency = 1) => ({
      schemaVersion: 1,
      name: "L",
      steps: [
        {
          id: "each",
          type: "loop",
          config: { items: [1], concurrency, body: { steps: bodySteps } },
        },
      ],
    });
    const a = loop([{ id: "x", type: "transform", config: { value: 1 } }]);
    const b = loop(
      [
        { id: "x", type: "transform", config: { value: 2 } },
        { id: "y", type: "transform", config: { value: 3 } },
      ],
      2,
    );
    const diff = diffDefinitions(a, b);
    const change = diff.steps.changed[0]!;
    expect(change.changes).toEqual([{ path: ["config", "concurrency"], before: 1, after: 2 }]);
    expect(change.body!.steps.added.map((s) => s.id)).toEqual(["y"]);
    expect(change.body!.steps.changed[0]!.changes).toEqual([
      { path: ["config", "value"], before: 1, after: 2 },
    ]);
    expect(change.body!.edges.added).toEqual([
      { from: "x", to: "y", port: "success", onFailure: "skip" },
    ]);
  });

  it("a type change shows as a changed step", () => {
    const after = def({
      steps: [{ id: "lint", type: "transform", config: { value: 1 } }, ...def().steps.slice(1)],
    });
    const change = diffDefinitions(def(), after).steps.changed[0]!;
    expect(change.changes.map((c) => c.path.join("."))).toEqual(
      expect.arrayContaining(["type", "config.command", "config.value"]),
    );
  });
});

describe("diffValues", () => {
  it("recurses into objects and same-length arrays, replaces different-length arrays", () => {
    expect(diffValues({ a: [1, 2], b: { c: 1 } }, { a: [1, 3], b: { c: 1, d: 2 } })).toEqual([
      { path: ["a", 1], before: 2, after: 3 },
      { path: ["b", "d"], before: undefined, after: 2 },
    ]);
    expect(diffValues([1], [1, 2], ["x"])).toEqual([{ path: ["x"], before: [1], after: [1, 2] }]);
    expect(diffValues("a", 1)).toEqual([{ path: [], before: "a", after: 1 }]);
  });
});

import { describe, expect, it } from "vitest";
import { edgeLabel, showValue, summarizeChange } from "./change-summary";
import { diffDefinitions } from "./diff";

/*
 * before:  lint ──▶ approve ──approved──▶ deploy        each_order { charge ──▶ receipt }
 * after:   lint ──▶ approve ──approved──▶ deploy ──▶ announce   (deploy edge: fail_run)
 *                                                               each_order { charge }
 */
const before = {
  schemaVersion: 1,
  name: "Release",
  inputs: { version: { type: "string", required: true }, dryRun: { type: "boolean" } },
  variables: { env: "staging" },
  constraints: { maxSteps: 50 },
  steps: [
    { id: "lint", type: "script", config: { command: "npm run lint" } },
    { id: "approve", type: "approval", config: { prompt: "Ship?" } },
    { id: "deploy", type: "http", config: { method: "POST", url: "https://deploy.example/api" } },
    {
      id: "each_order",
      type: "loop",
      config: {
        items: [1, 2],
        body: {
          steps: [
            { id: "charge", type: "http", config: { url: "https://pay.example/charge" } },
            {
              id: "receipt",
              type: "notify",
              config: { channel: "email", target: "a@b.example", message: "paid" },
            },
          ],
        },
      },
    },
  ],
  edges: [
    { from: "lint", to: "approve" },
    { from: "approve", port: "approved", to: "deploy" },
    { from: "deploy", to: "each_order" },
  ],
};

const after = {
  ...before,
  name: "Release train",
  description: "Lint, ask, deploy",
  inputs: {
    version: { type: "string", required: true, description: "semver" },
    region: { type: "string" },
  },
  variables: { env: "production" },
  constraints: { maxSteps: 200 },
  steps: [
    { id: "lint", type: "script", name: "Lint", config: { command: "npm run lint" } },
    { id: "approve", type: "approval", config: { prompt: "Ship?" } },
    {
      id: "deploy",
      type: "http",
      config: { method: "POST", url: "https://deploy.example/v2" },
      retry: { maxAttempts: 3 },
    },
    {
      id: "each_order",
      type: "loop",
      config: {
        items: [1, 2],
        concurrency: 2,
        body: {
          steps: [{ id: "charge", type: "http", config: { url: "https://pay.example/v2/charge" } }],
        },
      },
    },
    { id: "announce", type: "emit_event", config: { event: "release.done" } },
  ],
  edges: [
    { from: "lint", to: "approve" },
    { from: "approve", port: "approved", to: "deploy", onFailure: "fail_run" },
    { from: "deploy", to: "each_order" },
    { from: "each_order", port: "done", to: "announce" },
  ],
};

describe("summarizeChange", () => {
  it("one line per change, every kind, loop bodies prefixed with the loop id", () => {
    const lines = summarizeChange(diffDefinitions(before, after));
    expect(lines.map((l) => `${l.kind} ${l.change} ${l.target} | ${l.message}`)).toEqual([
      'metadata changed name | name: Release → "Release train"',
      'metadata added description | description: set to "Lint, ask, deploy"',
      "input added region | input `region` added",
      "input removed dryRun | input `dryRun` removed",
      "input changed version | input `version`: description changed",
      "variable changed env | variable `env`: staging → production",
      "constraint changed maxSteps | constraint maxSteps: 50 → 200",
      "step added announce | step `announce` (emit_event) added",
      "step changed lint | step `lint` (script): name changed",
      "step changed deploy | step `deploy` (http): config.url, retry.maxAttempts changed",
      "step changed each_order | step `each_order` (loop): config.concurrency changed",
      "step removed each_order/receipt | step `each_order/receipt` (notify) removed",
      "step changed each_order/charge | step `each_order/charge` (http): config.url changed",
      "edge removed each_order/charge —success→ each_order/receipt | edge each_order/charge —success→ each_order/receipt removed",
      "edge added each_order —done→ announce | edge each_order —done→ announce added",
      "edge changed approve —approved→ deploy | edge approve —approved→ deploy: onFailure skip → fail_run",
    ]);
  });

  it("an empty diff has no lines; layout is never a change", () => {
    expect(
      summarizeChange(
        diffDefinitions(before, { ...before, layout: { positions: { lint: { x: 1, y: 1 } } } }),
      ),
    ).toEqual([]);
  });

  it("a retyped step names both types; an added edge with a failure policy says so", () => {
    const retyped = {
      ...before,
      steps: [{ id: "lint", type: "transform", config: { value: 1 } }, ...before.steps.slice(1)],
      edges: [...before.edges, { from: "lint", to: "deploy", onFailure: "continue" }],
    };
    const messages = summarizeChange(diffDefinitions(before, retyped)).map((l) => l.message);
    expect(messages).toContain("step `lint` (script → transform): config changed");
    expect(messages).toContain("edge lint —success→ deploy added (onFailure continue)");
  });

  it("helpers", () => {
    expect(edgeLabel({ from: "a", to: "b" })).toBe("a —success→ b");
    expect(showValue(undefined)).toBe("(none)");
    expect(showValue("two words")).toBe('"two words"');
    expect(showValue({ a: 1 })).toBe('{"a":1}');
  });
});

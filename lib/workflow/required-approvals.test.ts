import { describe, expect, it } from "vitest";
import { parseDefinition } from "./validate";
import { requiredApprovalViolations, type ApprovalTarget } from "./required-approvals";

const post = (id: string) => ({
  id,
  type: "http",
  config: { method: "POST", url: "https://pay.example/charge" },
});
const get = (id: string) => ({ id, type: "http", config: { url: "https://api.example/x" } });
const gate = (id: string, config: Record<string, unknown> = {}) => ({
  id,
  type: "approval",
  config: { prompt: "Go?", ...config },
});
const step = (id: string) => ({ id, type: "transform", config: { value: 1 } });

function check(
  steps: unknown[],
  edges?: unknown[],
  targets: ApprovalTarget[] = ["http_write", "script", "notify"],
) {
  const definition = parseDefinition({
    schemaVersion: 1,
    name: "Policy",
    inputs: { orders: { type: "array" }, ok: { type: "boolean" } },
    steps,
    ...(edges ? { edges } : {}),
  });
  return requiredApprovalViolations(definition, targets).map((v) => ({
    stepId: v.stepId,
    route: v.route,
  }));
}

describe("requiredApprovalViolations", () => {
  //   start → fetch → charge (POST)
  it("a covered step with no approval before it names the step, its kind and the path", () => {
    const definition = parseDefinition({
      schemaVersion: 1,
      name: "P",
      steps: [get("fetch"), post("charge")],
    });
    const [v, ...rest] = requiredApprovalViolations(definition, ["http_write"]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ stepId: "charge", kind: "http POST", path: ["steps", 1] });
    expect(v!.message).toMatch(
      /^step "charge" \(http POST\) is reachable without an approval: start → fetch → charge\./,
    );
  });

  //   start → fetch → ask ─approved→ charge (POST)
  it("an approval on the only path covers the step", () => {
    expect(check([get("fetch"), gate("ask"), post("charge")])).toEqual([]);
  });

  //   start → fetch (GET) → ask → charge
  it("http_write leaves GET alone; http covers every method", () => {
    expect(check([get("fetch")])).toEqual([]);
    expect(check([get("fetch")], undefined, ["http"])).toEqual([
      { stepId: "fetch", route: "start → fetch" },
    ]);
  });

  it("no targets, no violations", () => {
    expect(check([post("charge")], undefined, [])).toEqual([]);
  });

  //              ┌─true──▶ ask ─approved─▶┐
  //   start → check                        charge (POST)
  //              └─false─────────────────▶┘
  it("diamond where only one branch has the approval: the other branch reaches the step", () => {
    const steps = [
      { id: "check", type: "condition", config: { condition: { ref: "input.ok" } } },
      gate("ask"),
      post("charge"),
    ];
    expect(
      check(steps, [
        { from: "check", port: "true", to: "ask" },
        { from: "ask", port: "approved", to: "charge" },
        { from: "check", port: "false", to: "charge" },
      ]),
    ).toEqual([{ stepId: "charge", route: "start → check → charge" }]);
    //              ┌─true──▶ ask ─approved─▶┐
    //   start → check                        charge       (both branches approved: fine)
    //              └─false─▶ ask2 ─approved─▶┘
    expect(
      check(
        [...steps, gate("ask2")],
        [
          { from: "check", port: "true", to: "ask" },
          { from: "ask", port: "approved", to: "charge" },
          { from: "check", port: "false", to: "ask2" },
          { from: "ask2", port: "approved", to: "charge" },
        ],
      ),
    ).toEqual([]);
  });

  //   start → fetch ─▶ ask ─approved─▶ charge (POST)
  //             └────▶ tell (notify)
  it("parallel branches: a sibling of the approved branch is not covered", () => {
    expect(
      check(
        [
          get("fetch"),
          gate("ask"),
          post("charge"),
          {
            id: "tell",
            type: "notify",
            config: { channel: "webhook", target: "https://hooks.example/x", message: "hi" },
          },
        ],
        [
          { from: "fetch", to: "ask" },
          { from: "ask", port: "approved", to: "charge" },
          { from: "fetch", to: "tell" },
        ],
      ),
    ).toEqual([{ stepId: "tell", route: "start → fetch → tell" }]);
  });

  //   start → ask ─approved─▶ charge (POST)
  //   start → sh (script)                       (edges: [] → two roots, both start the run)
  it("parallel roots: every root starts the run", () => {
    expect(
      check(
        [gate("ask"), post("charge"), { id: "sh", type: "script", config: { command: "true" } }],
        [{ from: "ask", port: "approved", to: "charge" }],
      ),
    ).toEqual([{ stepId: "sh", route: "start → sh" }]);
  });

  //   start → ask ─rejected─▶ charge (POST)
  it("an approval only on the rejected path does not count", () => {
    expect(
      check([gate("ask"), post("charge")], [{ from: "ask", port: "rejected", to: "charge" }]),
    ).toEqual([{ stepId: "charge", route: "start → ask (leaves by its rejected port) → charge" }]);
  });

  //   start → ask ─error─▶ charge ; ask ─approved (onFailure: continue)─▶ refund
  it("the error port, or an approved edge that continues past a failed gate, does not count", () => {
    expect(
      check(
        [gate("ask"), post("charge"), post("refund")],
        [
          { from: "ask", port: "error", to: "charge" },
          { from: "ask", port: "approved", to: "refund", onFailure: "continue" },
        ],
      ),
    ).toEqual([
      { stepId: "charge", route: "start → ask (leaves by its error port) → charge" },
      { stepId: "refund", route: "start → ask (continues past it if it fails) → refund" },
    ]);
  });

  //   start → ask (onTimeout: approve) → charge
  it("a gate that approves itself on timeout does not count", () => {
    expect(check([gate("ask", { onTimeout: "approve" }), post("charge")])).toEqual([
      { stepId: "charge", route: "start → ask (approves itself on timeout) → charge" },
    ]);
  });

  //   start → a ─▶ ask ─approved─▶ c (POST)
  //           └──▶ b ─────────────▶┘          (a join: it runs when either edge is taken)
  it("a join reached by an unapproved edge too is not covered", () => {
    expect(
      check(
        [step("a"), gate("ask"), step("b"), post("c")],
        [
          { from: "a", to: "ask" },
          { from: "ask", port: "approved", to: "c" },
          { from: "a", to: "b" },
          { from: "b", to: "c" },
        ],
      ),
    ).toEqual([{ stepId: "c", route: "start → a → b → c" }]);
  });

  describe("loop bodies", () => {
    const loop = (id: string, body: unknown[], edges?: unknown[]) => ({
      id,
      type: "loop",
      config: { items: "{{ input.orders }}", body: { steps: body, ...(edges ? { edges } : {}) } },
    });

    //   start → ask → each [ charge (POST) ]
    it("an approval before the loop covers its whole body", () => {
      expect(check([gate("ask"), loop("each", [post("charge")])])).toEqual([]);
    });

    //   start → each [ ask → charge (POST) ] → after
    it("an approval inside the body covers the body's steps after it", () => {
      expect(check([loop("each", [gate("ask"), post("charge")])])).toEqual([]);
    });

    //   start → fetch → each [ shape → charge (POST) ]
    it("an unapproved body step is named with its loop and the path into the body", () => {
      const definition = parseDefinition({
        schemaVersion: 1,
        name: "Loop",
        inputs: { orders: { type: "array" }, ok: { type: "boolean" } },
        steps: [get("fetch"), loop("each", [step("shape"), post("charge")])],
      });
      const [v] = requiredApprovalViolations(definition, ["http_write"]);
      expect(v).toMatchObject({
        stepId: "charge",
        path: ["steps", 1, "config", "body", "steps", 1],
        route: "start → fetch → each → each/shape → each/charge",
      });
      expect(v!.message).toMatch(/^step "each\/charge" \(http POST\)/);
    });

    //   start → each [ ask → x ] ─done─▶ charge (POST)
    it("an approval inside the body does not cover the steps after the loop", () => {
      expect(check([loop("each", [gate("ask"), step("x")]), post("charge")])).toEqual([
        { stepId: "charge", route: "start → each → charge" },
      ]);
    });

    //   start → outer [ inner [ charge ] ]           (nested bodies)
    it("nested bodies carry the whole path", () => {
      expect(check([loop("outer", [loop("inner", [post("charge")])])])).toEqual([
        { stepId: "charge", route: "start → outer → outer/inner → outer/inner/charge" },
      ]);
    });
  });
});

import { describe, expect, it } from "vitest";
import { STEP_CATALOG, STEP_TYPES } from "./catalog";
import {
  defaultTimeoutMs,
  INSTANT_STEP_TYPES,
  ORCHESTRATED_STEP_TYPES,
  PROCESS_STEP_TYPES,
  PURE_STEP_TYPES,
  RECORDABLE_STEP_TYPES,
  SAVED_WORKFLOW_STEP_TYPES,
} from "./step-traits";

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("step-type lists derived from the catalog's traits", () => {
  it("lists each trait's types (the engine's behaviour depends on these exact sets)", () => {
    expect(sorted(PURE_STEP_TYPES)).toEqual(["condition", "return", "transform"]);
    expect(sorted(INSTANT_STEP_TYPES)).toEqual(["condition", "emit_event", "return", "transform"]);
    expect(sorted(ORCHESTRATED_STEP_TYPES)).toEqual([
      "approval",
      "delay",
      "loop",
      "subworkflow",
      "task",
      "wait_for_event",
    ]);
    expect(PROCESS_STEP_TYPES).toEqual(["script"]);
    expect(RECORDABLE_STEP_TYPES).toEqual(["http", "code", "llm", "notify", "tool"]);
    expect(SAVED_WORKFLOW_STEP_TYPES).toEqual(["propose_change"]);
  });

  it("gives the default attempt timeouts, and none to types that wait, nest or do no I/O", () => {
    const timeouts = Object.fromEntries(
      STEP_TYPES.flatMap((t) => {
        const ms = defaultTimeoutMs(t);
        return ms === undefined ? [] : [[t, ms]];
      }),
    );
    expect(timeouts).toEqual({
      http: 30_000,
      script: 120_000,
      code: 10_000,
      llm: 300_000,
      agent: 600_000,
      notify: 30_000,
      tool: 30_000,
    });
  });

  it("keeps the traits consistent with the rest of each record", () => {
    for (const type of STEP_TYPES) {
      const { traits, sideEffect, waits } = STEP_CATALOG[type];
      // A pure step has no side effect; a waiting step is driven by the run driver.
      if (traits.execution === "pure") expect(sideEffect, type).toBe(false);
      if (waits) expect(traits.execution, type).toBe("orchestrated");
      // Only steps with a deadline of their own may be recorded (a recording runs them inline).
      if (traits.recordable) expect(defaultTimeoutMs(type), type).toBeGreaterThan(0);
    }
  });
});

import { describe, expect, it } from "vitest";
import { STEP_CATALOG, STEP_TYPES } from "@/lib/workflow";
import { ACTION_HANDLERS, ORCHESTRATED_TYPES, handlerFor, registryParity } from "./registry";

describe("step handler registry", () => {
  it("has exactly one handler per catalog entry, and no handler without one", () => {
    expect(registryParity()).toEqual({ missing: [], extra: [] });
    expect(Object.keys(STEP_CATALOG).sort()).toEqual([...STEP_TYPES].sort());
    const all = [...ORCHESTRATED_TYPES, ...Object.keys(ACTION_HANDLERS)].sort();
    expect(all).toEqual([...STEP_TYPES].sort());
  });

  it("routes every type and refuses unknown ones", () => {
    for (const t of STEP_TYPES) expect(["action", "orchestrated"]).toContain(handlerFor(t).kind);
    expect(() => handlerFor("teleport" as never)).toThrow(/No handler/);
  });

  it("orchestrates exactly the waiting and nesting types", () => {
    for (const t of STEP_TYPES) {
      const waits = STEP_CATALOG[t].waits || t === "loop" || t === "subworkflow";
      expect(handlerFor(t).kind === "orchestrated").toBe(waits);
    }
  });
});

import { describe, expect, it } from "vitest";
import { STARTERS } from "./starters";
import { validateDefinition } from "./workflow";

/** Step types that reach outside Sluice (or need the workspace to enable or configure them). */
const OUTSIDE = new Set(["http", "llm", "agent", "tool", "notify", "script"]);

function stepTypes(steps: unknown): string[] {
  return (steps as { type: string; config?: { body?: { steps?: unknown } } }[]).flatMap((s) => [
    s.type,
    ...(s.config?.body?.steps ? stepTypes(s.config.body.steps) : []),
  ]);
}

describe("built-in starters", () => {
  for (const s of STARTERS) {
    it(`${s.id} validates with no errors`, () => {
      const r = validateDefinition(s.definition);
      expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
      expect(r.ok).toBe(true);
    });

    it(`${s.id} runs out of the box: no outside service, every required input has a default`, () => {
      expect(stepTypes(s.definition.steps).filter((t) => OUTSIDE.has(t))).toEqual([]);
      const inputs = (s.definition.inputs ?? {}) as Record<
        string,
        { required?: boolean; default?: unknown }
      >;
      const bare = Object.entries(inputs).filter(([, i]) => i.required && i.default === undefined);
      expect(bare.map(([name]) => name)).toEqual([]);
    });
  }
});

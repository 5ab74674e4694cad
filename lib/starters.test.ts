import { describe, expect, it } from "vitest";
import { STARTERS } from "./starters";
import { validateDefinition } from "./workflow";

describe("built-in starters", () => {
  for (const s of STARTERS) {
    it(`${s.id} validates with no errors`, () => {
      const r = validateDefinition(s.definition);
      expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
      expect(r.ok).toBe(true);
    });
  }
});

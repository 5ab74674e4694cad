import { describe, expect, it } from "vitest";
import { makeLargeDefinition } from "./fixtures";
import { validateDefinition } from "./validate";

describe("makeLargeDefinition", () => {
  it.each([1, 2, 5, 37, 250, 1000])("builds a valid definition with exactly %d steps", (n) => {
    const definition = makeLargeDefinition(n);
    expect(definition.steps).toHaveLength(n);
    const result = validateDefinition(definition);
    expect(result.issues).toEqual([]);
  });

  it("is deterministic", () => {
    expect(makeLargeDefinition(100)).toEqual(makeLargeDefinition(100));
  });

  it("refuses sizes outside 1..1000", () => {
    for (const n of [0, -1, 1001, 2.5, Number.NaN])
      expect(() => makeLargeDefinition(n)).toThrow(RangeError);
  });
});

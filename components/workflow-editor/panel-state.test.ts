import { describe, expect, it } from "vitest";
import { panelStorageKey, parseCollapsed } from "./panel-state";

describe("parseCollapsed", () => {
  it("reads the stored panel names and ignores anything else", () => {
    expect([...parseCollapsed('["inspector","palette"]')]).toEqual(["inspector", "palette"]);
    expect([...parseCollapsed('["problems","sidebar",3]')]).toEqual(["problems"]);
    expect([...parseCollapsed('["minimap"]')]).toEqual(["minimap"]);
  });

  it("treats a missing or unreadable value as every panel open", () => {
    expect(parseCollapsed(null).size).toBe(0);
    expect(parseCollapsed("{not json").size).toBe(0);
    expect(parseCollapsed('{"palette":true}').size).toBe(0);
  });

  it("keeps one key per person", () => {
    expect(panelStorageKey("u1")).not.toBe(panelStorageKey("u2"));
  });
});

import { describe, expect, it } from "vitest";
import { newId, seededUlids, ulid, ulidTime } from "./ids";

describe("ids", () => {
  it("newId: prefix, 10 time and 12 random lower-case Crockford characters, sortable by time", () => {
    const before = Date.now();
    const id = newId("wf");
    expect(id).toMatch(/^wf_[0-9a-hjkmnp-tv-z]{22}$/);
    const at = ulidTime(id.slice("wf_".length));
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    const many = new Set(Array.from({ length: 1000 }, () => newId("run")));
    expect(many.size).toBe(1000);
  });

  it("ulid and newId share one clock encoding: ulid(ms) and a newId made at ms agree", () => {
    const id = ulid(1_700_000_000_000);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ulidTime(id)).toBe(1_700_000_000_000);
    expect(ulidTime(newId("x").slice(2)) - Date.now()).toBeLessThanOrEqual(0);
  });

  it("seeded ULIDs ignore a seed that is not base64 of 10 bytes", () => {
    expect(seededUlids("1700000000000,@@@", 1)).toBeUndefined();
    expect(seededUlids(`1700000000000,${btoa("short")}`, 1)).toBeUndefined();
    expect(seededUlids(`1700000000000,${btoa("abcdefghij")}`, 2)).toHaveLength(2);
  });
});

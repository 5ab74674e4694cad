import { describe, expect, it } from "vitest";
import { deepJsonRefusal, jsonTextDepthExcess } from "./json-depth";
import { jsonProblem, MAX_JSON_DEPTH } from "./workflow/json";

const nested = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);

describe("jsonTextDepthExcess", () => {
  it("allows maxDepth containers and refuses one more, as jsonProblem does on the parsed value", () => {
    for (const n of [1, 63, 64, 65]) {
      const text = nested(n);
      expect(jsonTextDepthExcess(text, 64) === null, `${n} levels`).toBe(
        jsonProblem(JSON.parse(text), 64) === null,
      );
    }
    expect(jsonTextDepthExcess(nested(64), 64)).toBeNull();
    expect(jsonTextDepthExcess(nested(65), 64)?.path).toHaveLength(64);
  });

  it("scans 100,000 levels without recursion", () => {
    expect(jsonTextDepthExcess(nested(100_000), 64)?.path).toEqual(Array(64).fill(0));
  });

  it("names the path: object keys (escapes decoded) and array indexes", () => {
    //   {"a": [1, {"b\"c": [[…]]}]}   → the excess sits at a.1.b"c.0…
    const text = `{"a":[1,{"b\\"c":${nested(10)}}]}`;
    expect(jsonTextDepthExcess(text, 5)?.path).toEqual(["a", 1, 'b"c', 0, 0]);
  });

  it("ignores brackets, braces, commas and escaped quotes inside strings", () => {
    const text = JSON.stringify({ s: '[[[[[{{{{{,,,\\"[[[[', k: ["]]]]"] });
    expect(jsonTextDepthExcess(text, 2)).toBeNull();
    expect(jsonTextDepthExcess(`{"[[[":{"x":[1,2,{"y":1}]}}`, 3)?.path).toEqual(["[[[", "x", 2]);
  });

  it("counts keys after a comma in the right object", () => {
    const text = `{"a":{"x":1},"b":{"c":${nested(3)}}}`;
    expect(jsonTextDepthExcess(text, 3)?.path).toEqual(["b", "c", 0]);
  });
});

describe("deepJsonRefusal", () => {
  it("does not count the transport's envelope and starts the path inside it", () => {
    const inner = `{"input":${nested(MAX_JSON_DEPTH)}}`; // 65 levels
    const r = deepJsonRefusal(`{"0":{"json":${inner}}}`, 2);
    expect(r?.envelopePath).toEqual(["0", "json"]);
    expect(r?.path.slice(0, 2)).toEqual(["input", 0]);
    expect(r?.where).toMatch(/^input\.0\.0\.0/);
    expect(r?.message).toBe("nesting deeper than 64 levels; flatten it");
    expect(deepJsonRefusal(`{"0":{"json":${nested(MAX_JSON_DEPTH)}}}`, 2)).toBeNull();
  });

  it("quotes at most about 200 characters of a long key in the message", () => {
    const key = "k".repeat(10_000);
    const r = deepJsonRefusal(`{"${key}":${nested(MAX_JSON_DEPTH)}}`);
    expect(r?.where.length).toBe(200);
    expect(r?.path[0]).toHaveLength(200);
  });
});

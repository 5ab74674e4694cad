/**
 * Messages quote at most ~200 characters of what was sent (clip in json.ts): a 10,000-character
 * id, key or name comes back as its first 199 characters and "…", never whole.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveRunInput } from "./inputs";
import { describeZodIssue } from "./zod-issues";
import { validateDefinition } from "./validate";

const long = "x".repeat(10_000);
const clipped = `"${"x".repeat(199)}…"`;

describe("long values in messages", () => {
  it("validateDefinition: ids, edge ends, keys and input names", () => {
    const r = validateDefinition({
      schemaVersion: 1,
      name: "n",
      inputs: { [long]: { type: "string" } },
      steps: [
        { id: long, type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
        { id: `${long}y`, type: `nope${long}`, config: {} },
      ],
      edges: [
        { from: long, to: "b" },
        { from: "b", to: `${long}z` },
      ],
      [long]: 1,
    });
    expect(r.issues.length).toBeGreaterThan(4);
    for (const issue of r.issues) expect(issue.message.length, issue.code).toBeLessThan(600);
    expect(r.issues.some((i) => i.message.includes(clipped))).toBe(true);
  });

  it("resolveRunInput: an unknown input name", () => {
    const r = resolveRunInput({ a: { type: "string", required: false } }, { [long]: 1 });
    expect(r.ok).toBe(false);
    const message = r.ok ? "" : r.issues[0]!.message;
    expect(message).toContain(clipped);
    expect(message.length).toBeLessThan(400);
  });

  it("describeZodIssue: an unknown key", () => {
    const parsed = z.strictObject({ a: z.number() }).safeParse({ a: 1, [long]: 2 });
    const { message } = describeZodIssue(parsed.error!.issues[0]!);
    expect(message).toBe(`unknown key ${clipped}`);
  });
});

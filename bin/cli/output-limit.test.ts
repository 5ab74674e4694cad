import { describe, expect, it } from "vitest";
import { boundOutputs, jsonBytes } from "./output-limit";

const step = (path: string, output: unknown) => ({
  stepId: path,
  path,
  output,
  status: "completed",
});

describe("boundOutputs (runtime.policy.maxOutputBytes)", () => {
  // output "abc" = 5 bytes of JSON; fetch {"n":1} = 7; send "é" = 4 (é is 2 bytes in UTF-8).
  const envelope = {
    status: "ok",
    output: "abc",
    steps: [step("fetch", { n: 1 }), step("send", "é"), step("gate", null)],
  };

  it("counts JSON bytes in UTF-8; null and absent outputs are free", () => {
    expect([jsonBytes("abc"), jsonBytes({ n: 1 }), jsonBytes("é"), jsonBytes(null)]).toEqual([
      5, 7, 4, 0,
    ]);
    expect(jsonBytes(undefined)).toBe(0);
  });

  it("leaves an envelope within the bound (or without one) as it is", () => {
    expect(boundOutputs(envelope, undefined)).toBe(envelope);
    expect(boundOutputs(envelope, 16)).toBe(envelope);
  });

  it("keeps the run's output first, then step outputs in order while they fit; names the rest", () => {
    expect(boundOutputs(envelope, 12)).toEqual({
      status: "ok",
      output: "abc",
      steps: [step("fetch", { n: 1 }), step("send", null), step("gate", null)],
      truncated: { maxOutputBytes: 12, outputBytes: 16, omitted: ["steps.send.output"] },
    });
    // The run's output does not fit alone: it is left out, and a later small step still fits.
    expect(boundOutputs(envelope, 4)).toEqual({
      status: "ok",
      output: null,
      steps: [step("fetch", null), step("send", "é"), step("gate", null)],
      truncated: {
        maxOutputBytes: 4,
        outputBytes: 16,
        omitted: ["output", "steps.fetch.output"],
      },
    });
  });

  it("bounds what is printed: the outputs in the printed JSON fit", () => {
    const big = { status: "ok", output: "x".repeat(5000), steps: [step("a", "y".repeat(5000))] };
    const bounded = boundOutputs(big, 1000);
    expect(jsonBytes(bounded.output) + jsonBytes(bounded.steps[0]!.output)).toBeLessThanOrEqual(
      1000,
    );
    expect(bounded.truncated?.omitted).toEqual(["output", "steps.a.output"]);
  });
});

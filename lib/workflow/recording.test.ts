import { describe, expect, it } from "vitest";
import {
  applySuggestion,
  expandStepShorthand,
  liveSuggestions,
  nextStepId,
  recordedDefinition,
  stepIdProblem,
  suggestReferences,
} from "./recording";
import { validateDefinition } from "./validate";

describe("expandStepShorthand", () => {
  const earlier = new Set(["fetch"]);
  it("rewrites whole-string references to earlier steps, anywhere in the config", () => {
    expect(
      expandStepShorthand(
        { a: "@fetch", b: ["@fetch.body.items[0].id"], c: { d: "@fetch.status" } },
        earlier,
      ),
    ).toEqual({
      a: "{{ steps.fetch.output.data }}",
      b: ["{{ steps.fetch.output.data.body.items[0].id }}"],
      c: { d: "{{ steps.fetch.output.data.status }}" },
    });
  });
  it("leaves unknown names, embedded @ and non-strings alone", () => {
    expect(expandStepShorthand(["@team", "ping @fetch", "a@fetch", 3, null], earlier)).toEqual([
      "@team",
      "ping @fetch",
      "a@fetch",
      3,
      null,
    ]);
  });
});

describe("step ids", () => {
  it("numbers repeated types and refuses taken or malformed ids", () => {
    expect(nextStepId("http", new Set())).toBe("http");
    expect(nextStepId("http", new Set(["http", "http_2"]))).toBe("http_3");
    expect(stepIdProblem("Fetch", new Set())).toMatch(/lowercase/);
    expect(stepIdProblem("fetch", new Set(["fetch"]))).toMatch(/already recorded/);
    expect(stepIdProblem("fetch", new Set())).toBeUndefined();
  });
});

describe("recordedDefinition", () => {
  it("is a valid definition: steps in order, inputs typed by the recorded input", () => {
    const def = recordedDefinition({
      name: "Recorded",
      input: { city: "Oslo", n: 3 },
      steps: [
        { id: "fetch", type: "http", config: { url: "https://example.com/{{ input.city }}" } },
        {
          id: "shape",
          type: "code",
          config: {
            source: "export default (input) => input.x",
            input: { x: "{{ steps.fetch.output.data }}" },
          },
        },
      ],
    });
    expect(def.inputs).toEqual({
      city: { type: "string", default: "Oslo" },
      n: { type: "number", default: 3 },
    });
    const r = validateDefinition(def);
    expect(r.issues).toEqual([]);
  });
});

describe("suggestReferences", () => {
  //   input{city} ──▶ fetch ──(data.id = "ord_123")──▶ notify(text: "ord_123")
  it("offers the nearest earlier output (or input) equal to a literal", () => {
    const s = suggestReferences({
      input: { city: "Oslo" },
      steps: [
        { id: "fetch", type: "http", config: { url: "https://x.test/Oslo" } },
        { id: "again", type: "http", config: { url: "https://x.test/{{ input.city }}" } },
        {
          id: "tell",
          type: "notify",
          config: { channel: "webhook", text: "ord_123", to: ["Oslo", 7] },
        },
      ],
      outputs: {
        fetch: { body: { id: "ord_123", n: 7 } },
        again: { body: { id: "ord_123" } },
      },
    });
    expect(s).toEqual([
      {
        stepId: "tell",
        path: ["text"],
        value: "ord_123",
        reference: "{{ steps.again.output.data.body.id }}",
      },
      { stepId: "tell", path: ["to", 0], value: "Oslo", reference: "{{ input.city }}" },
    ]);
  });
});

describe("suggestions in the editor", () => {
  const draft = {
    name: "R",
    steps: [
      { id: "fetch", type: "http", config: { url: "https://x.test/o" } },
      { id: "tell", type: "notify", config: { text: "ord_123", to: ["Oslo", 7] } },
    ],
  };
  const text = {
    stepId: "tell",
    path: ["text"],
    value: "ord_123",
    reference: "{{ steps.fetch.output.data.id }}",
  };
  const city = { stepId: "tell", path: ["to", 0], value: "Oslo", reference: "{{ input.city }}" };

  it("keeps only suggestions whose literal is still in the draft", () => {
    expect(liveSuggestions(draft, [text, city])).toEqual([text, city]);
    const edited = { ...draft, steps: [draft.steps[0]!, { ...draft.steps[1]!, config: {} }] };
    expect(liveSuggestions(edited, [text, city])).toEqual([]);
    const noSteps: Record<string, unknown> = { name: "R" };
    expect(liveSuggestions(noSteps, [text])).toEqual([]);
    expect(liveSuggestions(draft, [{ ...text, stepId: "gone" }])).toEqual([]);
  });

  it("replaces exactly the literal at the path, leaving the original untouched", () => {
    const once = applySuggestion(draft, city);
    expect(once.steps[1]).toEqual({
      id: "tell",
      type: "notify",
      config: { text: "ord_123", to: ["{{ input.city }}", 7] },
    });
    expect(draft.steps[1]!.config.to?.[0]).toBe("Oslo");
    const both = applySuggestion(once, text);
    expect(both.steps[1]!.config).toEqual({
      text: "{{ steps.fetch.output.data.id }}",
      to: ["{{ input.city }}", 7],
    });
    expect(both.steps[0]).toBe(draft.steps[0]);
    expect(liveSuggestions(both, [text, city])).toEqual([]);
  });
});

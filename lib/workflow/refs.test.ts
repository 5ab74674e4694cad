import { describe, expect, it } from "vitest";
import { definitionReferences, renameStep, RenameError, stepsReferencing } from "./refs";
import { validateDefinition } from "./validate";

const definition = {
  schemaVersion: 1,
  name: "Refs",
  inputs: { q: { type: "string" } },
  variables: { base: "https://api.example.com" },
  steps: [
    {
      id: "fetch",
      type: "http",
      config: {
        url: "{{ vars.base }}/search?q={{ input.q }}",
        headers: { authorization: "Bearer {{ secrets.API_TOKEN }}" },
      },
    },
    {
      id: "check",
      type: "condition",
      config: { condition: { ref: "steps.fetch.output.data.count", gt: 0 } },
    },
    {
      id: "each",
      type: "loop",
      config: {
        items: "{{ steps.fetch.output.data.items }}",
        body: {
          steps: [
            {
              id: "save",
              type: "http",
              config: {
                method: "POST",
                url: 'https://db.example/{{ steps["fetch"].output.data.id }}',
                headers: { k: "{{ secrets.DB_KEY }}" },
              },
            },
          ],
        },
      },
    },
    {
      id: "code",
      type: "code",
      config: {
        source: "export default () => '{{ steps.fetch.output }}'",
        input: "{{steps.fetch.output.data}}",
      },
    },
    { id: "sh", type: "script", config: { command: "deploy", secrets: { TOKEN: "DEPLOY_TOKEN" } } },
    {
      id: "after",
      type: "transform",
      config: {
        value: "count={{ steps.fetch.output.data.count }} loop={{ steps.each.output.data }}",
      },
      when: { ref: "steps.fetch.status", eq: "completed" },
    },
  ],
  edges: [
    { from: "fetch", to: "check" },
    { from: "check", to: "each", port: "true" },
    { from: "each", to: "code" },
    { from: "code", to: "sh" },
    { from: "sh", to: "after" },
  ],
  output: { result: "{{ steps.fetch.output.data }}" },
  layout: { positions: { fetch: { x: 1, y: 2 }, after: { x: 3, y: 4 } } },
};

describe("definitionReferences", () => {
  it("summarizes per step, loop bodies included, plus output, secrets, inputs and vars", () => {
    const refs = definitionReferences(definition);
    expect(refs.secrets).toEqual(["API_TOKEN", "DB_KEY", "DEPLOY_TOKEN"]);
    expect(refs.inputs).toEqual(["q"]);
    expect(refs.vars).toEqual(["base"]);
    expect(refs.steps.get("save")?.steps).toEqual(["fetch"]);
    expect(refs.steps.get("after")?.steps).toEqual(["fetch", "each"]);
    expect(refs.output.steps).toEqual(["fetch"]);
  });

  it("does not scan code sources", () => {
    expect(definitionReferences(definition).steps.get("code")?.references).toHaveLength(1);
  });

  it("stepsReferencing lists users of a step", () => {
    expect(stepsReferencing(definition, "fetch")).toEqual([
      "check",
      "each",
      "save",
      "code",
      "after",
      "output",
    ]);
    expect(stepsReferencing(definition, "after")).toEqual([]);
  });
});

describe("renameStep", () => {
  it("rewrites ids, edges, templates, condition refs and layout — and the result still validates", () => {
    const renamed = renameStep(definition, "fetch", "search");
    expect(validateDefinition(renamed).issues.filter((i) => i.severity === "error")).toEqual([]);
    const text = JSON.stringify({
      ...renamed,
      steps: renamed.steps.filter((step) => step.id !== "code"),
    });
    expect(text).not.toMatch(/steps\.fetch|"fetch"|steps\[\\"fetch/);
    expect(renamed.steps[0]).toMatchObject({ id: "search" });
    expect(renamed.steps[1]).toMatchObject({
      config: { condition: { ref: "steps.search.output.data.count", gt: 0 } },
    });
    expect(renamed.steps[5]).toMatchObject({
      when: { ref: "steps.search.status" },
      config: {
        value: "count={{ steps.search.output.data.count }} loop={{ steps.each.output.data }}",
      },
    });
    expect(renamed.edges[0]).toEqual({ from: "search", to: "check" });
    expect(renamed.output).toEqual({ result: "{{ steps.search.output.data }}" });
    expect(Object.keys(renamed.layout.positions)).toEqual(["search", "after"]);
  });

  it("keeps formatting, bracket syntax and literal fields as written", () => {
    const renamed = renameStep(definition, "fetch", "search");
    const save = (
      renamed.steps[2]!.config as { body: { steps: Array<{ config: { url: string } }> } }
    ).body.steps[0]!;
    expect(save.config.url).toBe('https://db.example/{{ steps["search"].output.data.id }}');
    expect(renamed.steps[3]).toMatchObject({
      config: {
        source: "export default () => '{{ steps.fetch.output }}'",
        input: "{{steps.search.output.data}}",
      },
    });
  });

  it("does not touch other steps whose id merely starts the same", () => {
    const def = {
      schemaVersion: 1,
      name: "x",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        {
          id: "ab",
          type: "transform",
          config: { value: "{{ steps.ab.output }} {{ steps.a.output }}" },
        },
      ],
    };
    expect(renameStep(def, "a", "z").steps[1]).toMatchObject({
      config: { value: "{{ steps.ab.output }} {{ steps.z.output }}" },
    });
  });

  it("follows a loop's stateFrom to the renamed body step", () => {
    const def = {
      schemaVersion: 1,
      name: "x",
      steps: [
        {
          id: "each",
          type: "loop",
          config: {
            items: [1],
            state: 0,
            stateFrom: "add",
            body: {
              steps: [{ id: "add", type: "transform", config: { value: "{{ loop.state }}" } }],
            },
          },
        },
      ],
    };
    const renamed = renameStep(def, "add", "plus");
    expect(renamed.steps[0]!.config).toMatchObject({ stateFrom: "plus" });
    expect(validateDefinition(renamed).ok).toBe(true);
  });

  it("does not mutate its input", () => {
    const before = JSON.stringify(definition);
    renameStep(definition, "fetch", "search");
    expect(JSON.stringify(definition)).toBe(before);
  });

  it("refuses invalid, taken or unknown ids", () => {
    expect(() => renameStep(definition, "fetch", "Search")).toThrow(RenameError);
    expect(() => renameStep(definition, "fetch", "check")).toThrow(/already exists/);
    expect(() => renameStep(definition, "nope", "x")).toThrow(/no step "nope"/);
  });
});

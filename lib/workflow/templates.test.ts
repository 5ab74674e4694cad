import { describe, expect, it } from "vitest";
import {
  parsePath,
  parseReference,
  parseTemplate,
  TemplateResolutionError,
  TemplateSyntaxError,
  tryParseTemplate,
} from "./templates";
import { collectReferences } from "./template-scan";
import {
  resolvePath,
  resolveString,
  resolveTemplate,
  type TemplateContext,
} from "./template-resolve";

const ctx: TemplateContext = {
  input: {
    version: "1.2.3",
    count: 3,
    flag: false,
    "my key": "spaced",
    nested: { list: [{ name: "first" }, { name: "second" }] },
    empty: null,
  },
  vars: { env: "staging" },
  steps: {
    fetch: {
      output: {
        type: "http",
        data: { items: [{ name: "a" }, { name: "b" }], status: 200 },
        meta: {},
      },
      status: "completed",
    },
    broken: { output: null, status: "failed" },
  },
  lastOutput: { type: "transform", data: 42, meta: {} },
  loop: { item: { id: 7 }, index: 2 },
  run: { id: "run_1", workflowId: "wf_1" },
  trigger: { headers: { "x-id": "abc" }, body: { ok: true } },
  secrets: (name) => (name === "API_TOKEN" ? "s3cret" : undefined),
};

describe("parseTemplate", () => {
  it("splits literals and expressions and flags the raw form", () => {
    const t = parseTemplate("Ship {{ input.version }} to {{vars.env}}!");
    expect(t.isRaw).toBe(false);
    expect(t.parts.map((p) => (p.kind === "literal" ? p.text : p.reference.path.source))).toEqual([
      "Ship ",
      "input.version",
      " to ",
      "vars.env",
      "!",
    ]);
    expect(parseTemplate("{{   input.version   }}").isRaw).toBe(true);
    expect(parseTemplate(" {{ input.version }}").isRaw).toBe(false);
  });

  it("parses dot, numeric and bracket segments", () => {
    expect(parsePath("steps.fetch.output.data.items[0].name").segments).toEqual([
      "fetch",
      "output",
      "data",
      "items",
      0,
      "name",
    ]);
    expect(parsePath(`input["my key"]`).segments).toEqual(["my key"]);
    expect(parsePath(`input['it\\'s']`).segments).toEqual(["it's"]);
    expect(parsePath("input.items.0").segments).toEqual(["items", "0"]);
    expect(parsePath("trigger.headers.x-id").segments).toEqual(["headers", "x-id"]);
  });

  it("keeps `}}` inside a quoted bracket key", () => {
    expect(parseTemplate(`{{ input["a}}b"] }}`).parts).toHaveLength(1);
  });

  it("`\\{{` writes a literal {{", () => {
    const t = parseTemplate("literal \\{{ not a template }}");
    expect(t.parts).toEqual([{ kind: "literal", text: "literal {{ not a template }}" }]);
  });

  it.each([
    ["{{ input.version", /Unclosed "\{\{"/],
    ["{{ }}", /Empty path/],
    ["{{ input.a + 1 }}", /paths only/],
    ["{{ input.a | upper }}", /paths only/],
    ["{{ input.a() }}", /paths only/],
    ["{{ input. }}", /expected a name/],
    ["{{ input[ }}", /expected \[number\]/],
    ["{{ input['x }}", /unterminated|Unclosed/],
    ["{{ steps.fetch }}", /steps.fetch.output or steps.fetch.status/],
    ["{{ steps.fetch.result }}", /steps.fetch.output/],
    ["{{ steps.fetch.status.code }}", /nothing can follow .status/],
    ["{{ loop.value }}", /loop.item, loop.index, loop.items, loop.state, loop.batch/],
    ["{{ loop.index.x }}", /nothing can follow/],
    ["{{ run.startedAt }}", /run.id or run.workflowId/],
    ["{{ 1abc }}", /must start with one of/],
    ["{{ a {{ b }} }}", /Unclosed/],
  ])("rejects %j", (text, message) => {
    expect(() => parseTemplate(text)).toThrow(message);
  });

  it("rejects unknown roots with a dedicated code", () => {
    const r = tryParseTemplate("{{ env.HOME }}");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("UNKNOWN_TEMPLATE_ROOT");
      expect(r.error.message).toMatch(/allowed roots are input, vars, steps/);
    }
  });

  it("refuses prototype-pollution segments in every syntax", () => {
    for (const text of [
      "{{ input.__proto__ }}",
      "{{ input.constructor }}",
      "{{ input.x.prototype }}",
      `{{ input["__proto__"] }}`,
      "{{ trigger['constructor'] }}",
      "{{ steps.__proto__.output }}",
    ]) {
      expect(() => parseTemplate(text), text).toThrow(TemplateSyntaxError);
    }
  });

  it("checks secret reference syntax", () => {
    expect(parseReference("secrets.API_TOKEN")).toMatchObject({
      root: "secrets",
      name: "API_TOKEN",
    });
    for (const bad of ["secrets.api_token", "secrets", "secrets.A.B", "secrets[0]", "secrets.1X"]) {
      const r = tryParseTemplate(`{{ ${bad} }}`);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error.code).toBe("INVALID_SECRET_REFERENCE");
    }
  });

  it("bounds path length and segment count", () => {
    expect(() => parsePath(`input${".a".repeat(65)}`)).toThrow(/more than 64 segments/);
    expect(() => parsePath(`input.${"a".repeat(2000)}`)).toThrow(/longer than/);
  });
});

describe("resolveTemplate", () => {
  it("a lone template yields the raw value with its type", () => {
    expect(resolveString("{{ input.count }}", ctx)).toBe(3);
    expect(resolveString("{{input.flag}}", ctx)).toBe(false);
    expect(resolveString("{{ input.nested }}", ctx)).toEqual({
      list: [{ name: "first" }, { name: "second" }],
    });
    expect(resolveString("{{ input.empty }}", ctx)).toBeNull();
    expect(resolveString("{{ loop.index }}", ctx)).toBe(2);
  });

  it("mixed strings stringify: objects as JSON, null/undefined as empty", () => {
    expect(resolveString("v{{ input.version }} x{{ input.count }} {{ input.flag }}", ctx)).toBe(
      "v1.2.3 x3 false",
    );
    expect(resolveString("data={{ steps.fetch.output.data.items[1] }}", ctx)).toBe(
      'data={"name":"b"}',
    );
    expect(resolveString("[{{ input.empty }}][{{ input.missing }}]", ctx)).toBe("[][]");
  });

  it("resolves every root", () => {
    expect(resolveString("{{ vars.env }}", ctx)).toBe("staging");
    expect(resolveString("{{ steps.fetch.output.data.items[0].name }}", ctx)).toBe("a");
    expect(resolveString("{{ steps.fetch.status }}", ctx)).toBe("completed");
    expect(resolveString("{{ steps.broken.output }}", ctx)).toBeNull();
    expect(resolveString("{{ lastOutput.data }}", ctx)).toBe(42);
    expect(resolveString("{{ loop.item.id }}", ctx)).toBe(7);
    expect(resolveString("{{ run.id }}/{{ run.workflowId }}", ctx)).toBe("run_1/wf_1");
    expect(resolveString("{{ trigger.headers.x-id }}", ctx)).toBe("abc");
    expect(resolveString(`{{ input["my key"] }}`, ctx)).toBe("spaced");
    expect(resolveString("{{ input.nested.list.length }}", ctx)).toBe(2);
    expect(resolveString("{{ input }}", ctx)).toBe(ctx.input);
  });

  it("resolves deeply through objects and arrays, leaving non-strings alone", () => {
    const value = {
      url: "https://x/{{ input.version }}",
      list: ["{{ input.count }}", 5, true, null],
      nested: { n: "{{ vars.env }}" },
    };
    expect(resolveTemplate(value, ctx)).toEqual({
      url: "https://x/1.2.3",
      list: [3, 5, true, null],
      nested: { n: "staging" },
    });
  });

  it("missing paths resolve to undefined (raw) or '' (mixed) unless strict", () => {
    expect(resolveString("{{ input.nope.deeper }}", ctx)).toBeUndefined();
    expect(resolveString("{{ steps.unknown.output }}", ctx)).toBeUndefined();
    expect(resolveString("{{ input.nested.list[5].name }}", ctx)).toBeUndefined();
    expect(resolveString("x{{ input.nope }}y", ctx)).toBe("xy");
  });

  it("strict mode names the missing part precisely", () => {
    const strict = { strict: true };
    expect(() => resolveString("{{ input.nested.list[5].name }}", ctx, strict)).toThrow(
      "Cannot resolve {{ input.nested.list[5].name }}: input.nested.list has no index 5 (length 2).",
    );
    expect(() => resolveString("{{ input.nope.deeper }}", ctx, strict)).toThrow(
      /input has no key "nope"/,
    );
    expect(() => resolveString("{{ steps.ghost.output }}", ctx, strict)).toThrow(
      /step "ghost" has no result/,
    );
    expect(() => resolveString("{{ loop.item }}", { ...ctx, loop: undefined }, strict)).toThrow(
      /only available inside a loop body/,
    );
    expect(() => resolveString("{{ input.version.major }}", ctx, strict)).toThrow(
      /is a string, which has no "major"/,
    );
    try {
      resolveString("{{ input.nope }}", ctx, strict);
    } catch (error) {
      expect(error).toBeInstanceOf(TemplateResolutionError);
      expect((error as TemplateResolutionError).path).toBe("input.nope");
    }
  });

  it("never follows inherited properties", () => {
    const obj = Object.create({ inherited: "leak" }) as Record<string, unknown>;
    obj.own = "ok";
    expect(resolveString("{{ input.own }}", { input: obj })).toBe("ok");
    expect(resolveString("{{ input.inherited }}", { input: obj })).toBeUndefined();
    expect(resolveString("{{ input.toString }}", { input: {} })).toBeUndefined();
    expect(resolveString("{{ input.hasOwnProperty }}", { input: {} })).toBeUndefined();
  });

  it("does not re-resolve templates found in data (no injection)", () => {
    const evil: TemplateContext = { ...ctx, input: { text: "{{ secrets.API_TOKEN }}" } };
    expect(resolveString("{{ input.text }}", evil)).toBe("{{ secrets.API_TOKEN }}");
    expect(resolveString("say {{ input.text }}", evil)).toBe("say {{ secrets.API_TOKEN }}");
  });

  it("secrets come from the resolver; a missing secret always throws", () => {
    expect(resolveString("Bearer {{ secrets.API_TOKEN }}", ctx)).toBe("Bearer s3cret");
    expect(() => resolveString("{{ secrets.OTHER }}", ctx)).toThrow(
      /Secret "OTHER" is not available/,
    );
    expect(() => resolveString("{{ secrets.API_TOKEN }}", { input: {} })).toThrow(
      TemplateResolutionError,
    );
  });

  it("escape hook applies to interpolated values only", () => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    expect(
      resolveString(
        "deploy {{ input.version }}",
        { input: { version: "1; rm -rf /" } },
        { escape: quote },
      ),
    ).toBe("deploy '1; rm -rf /'");
  });

  it("keeps a __proto__ key of resolved objects an own property", () => {
    const source = JSON.parse(
      '{"__proto__": {"polluted": true}, "a": "{{ vars.env }}"}',
    ) as unknown;
    const out = resolveTemplate(source, ctx) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.a).toBe("staging");
  });

  it("resolvePath reads a bare path", () => {
    expect(resolvePath("steps.fetch.output.data.status", ctx)).toBe(200);
  });
});

describe("loop variables", () => {
  const items = [{ total: 5 }, { total: 7 }, { total: 9 }];
  const strict = { strict: true };

  it("loop.items is the whole list, loop.state the accumulator (null included)", () => {
    const loop = { item: items[1], index: 1, items, hasState: true, state: { total: 5 } };
    expect(resolveString("{{ loop.items }}", { loop })).toBe(items);
    expect(resolveString("{{ loop.items.length }}", { loop })).toBe(3);
    expect(resolveString("{{ loop.items[2].total }}", { loop })).toBe(9);
    expect(resolveString("{{ loop.state.total }}", { loop })).toBe(5);
    expect(resolveString("{{ loop.state }}", { loop: { ...loop, state: null } }, strict)).toBe(
      null,
    );
  });

  it("loop.batch in a batched loop, where loop.item does not exist", () => {
    const loop = { index: 1, batch: [3, 4], items: [1, 2, 3, 4, 5] };
    expect(resolveString("{{ loop.batch }}", { loop })).toEqual([3, 4]);
    expect(resolveString("{{ loop.batch[1] }} of {{ loop.index }}", { loop })).toBe("4 of 1");
    expect(() => resolveString("{{ loop.item }}", { loop }, strict)).toThrow(
      /runs in batches \(batchSize\); use loop.batch/,
    );
  });

  it("says which loop field this loop lacks", () => {
    const loop = { item: 1, index: 0, items: [1] };
    expect(() => resolveString("{{ loop.batch }}", { loop }, strict)).toThrow(
      /loop.batch exists only in a loop with a batchSize/,
    );
    expect(() => resolveString("{{ loop.state.total }}", { loop }, strict)).toThrow(
      /loop.state exists only in a loop that declares a "state"/,
    );
    expect(resolveString("{{ loop.state }}", { loop })).toBeUndefined();
  });
});

describe("collectReferences", () => {
  it("lists steps, inputs, vars and secrets with locations", () => {
    const refs = collectReferences({
      url: "https://x/{{ input.version }}",
      headers: { auth: "Bearer {{ secrets.API_TOKEN }}" },
      body: ["{{ steps.fetch.output.data }}", { v: "{{ vars.env }} {{ steps.lint.status }}" }],
      other: "{{ loop.item }} {{ lastOutput }} {{ trigger.body }} {{ run.id }}",
    });
    expect(refs.inputs).toEqual(["version"]);
    expect(refs.secrets).toEqual(["API_TOKEN"]);
    expect(refs.steps).toEqual(["fetch", "lint"]);
    expect(refs.vars).toEqual(["env"]);
    expect(refs.usesLoop && refs.usesLastOutput && refs.usesTrigger).toBe(true);
    expect(refs.references.find((r) => r.reference.root === "secrets")?.location).toEqual([
      "headers",
      "auth",
    ]);
    expect(refs.references.find((r) => r.reference.root === "steps")?.location).toEqual([
      "body",
      0,
    ]);
  });

  it("reports syntax errors instead of throwing, with their location", () => {
    const refs = collectReferences({ a: ["ok {{ input.x }}", "bad {{ input.x"] }, ["config"]);
    expect(refs.errors).toHaveLength(1);
    expect(refs.errors[0]!.location).toEqual(["config", "a", 1]);
    expect(refs.inputs).toEqual(["x"]);
  });

  it("copes with huge and deeply nested values", () => {
    const big = Array.from({ length: 50_000 }, (_, i) => `item ${i} {{ input.a }}`);
    expect(collectReferences(big).references).toHaveLength(50_000);
    let deep: unknown = "{{ input.deep }}";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => collectReferences(deep)).not.toThrow();
  });
});

/**
 * fast-check generators of arbitrary, mostly broken definitions for the fuzz properties of
 * validate + hash + publish (test and bench support only; nothing in the app imports it).
 *
 * Built on the valid definitions of edit-ops.arbitraries.ts: a valid one as is, the same with 1–4
 * mutations at random places (a value replaced by junk of the wrong type, a key dropped, an
 * unknown or `__proto__` key added, a step duplicated, an edge reversed into a cycle or pointed
 * at a missing step), any JSON object, or any JSON value at all. Junk includes null, arrays, NUL
 * characters, lone surrogates, huge numbers and nesting deeper than the validator accepts.
 */
import fc from "fast-check";
import { arbitraryDefinition } from "./edit-ops.arbitraries";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const MUTATIONS = [
  "replace",
  "drop",
  "unknownKey",
  "protoKey",
  "duplicateStep",
  "cycle",
  "danglingEdge",
] as const;

/** `depth` levels of `{"a": [ … ]}`: past the validator's depth limit when large. */
export function deeplyNested(depth: number): Json {
  let v: Json = "bottom";
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

const nastyString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "{{ steps.",
    "{{ steps.nope.output.data }}",
    "}}{{",
    "__proto__",
    "constructor",
    "",
    " ",
    "s0",
    "𝒮luice",
  ),
  fc.string({ unit: "binary", maxLength: 20 }),
);

/** A value of any JSON type, biased to what breaks naive code. */
export const junkValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: nastyString },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Json>(
      null,
      [],
      {},
      [null],
      0,
      -1,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      0.5,
      true,
      false,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(40, 70, 300).map(deeplyNested) },
);

interface Mutation {
  op: (typeof MUTATIONS)[number];
  at: number;
  key: string;
  value: Json;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom(...MUTATIONS),
  at: fc.nat(),
  key: fc.oneof(
    fc.constantFrom("id", "type", "config", "steps", "edges", "when", "port"),
    nastyString,
  ),
  value: junkValue,
});

/** Every container in `root` with its keys (object) or indexes (array), in a stable order. */
function slots(root: Json): { parent: Json[] | { [key: string]: Json }; key: string | number }[] {
  const out: { parent: Json[] | { [key: string]: Json }; key: string | number }[] = [];
  const walk = (v: Json) => {
    if (Array.isArray(v))
      v.forEach((c, i) => {
        out.push({ parent: v, key: i });
        walk(c);
      });
    else if (v && typeof v === "object")
      for (const [k, c] of Object.entries(v)) {
        out.push({ parent: v, key: k });
        walk(c);
      }
  };
  walk(root);
  return out;
}

function stepsOf(root: Json): Json[] | undefined {
  const steps = root && typeof root === "object" && !Array.isArray(root) ? root.steps : undefined;
  return Array.isArray(steps) ? steps : undefined;
}

function edgesOf(root: Json): Json[] {
  if (!root || typeof root !== "object" || Array.isArray(root)) return [];
  if (!Array.isArray(root.edges)) root.edges = [];
  return root.edges as Json[];
}

function applyMutation(root: Json, mutation: Mutation): Json {
  // A copy: constantFrom hands out the same object on every run, and mutations write into values.
  const m = { ...mutation, value: structuredClone(mutation.value) };
  const all = slots(root);
  const slot = all.length ? all[m.at % all.length]! : undefined;
  const steps = stepsOf(root);
  const stepId = (i: number) => {
    const s = steps?.[i];
    return s && typeof s === "object" && !Array.isArray(s) ? (s.id ?? null) : null;
  };
  switch (m.op) {
    case "replace":
      if (!slot) return m.value;
      (slot.parent as Record<string | number, Json>)[slot.key] = m.value;
      return root;
    case "drop":
      if (!slot) return root;
      if (Array.isArray(slot.parent)) slot.parent.splice(Number(slot.key), 1);
      else delete slot.parent[slot.key];
      return root;
    case "unknownKey":
    case "protoKey": {
      const objects = all
        .map((s) => (s.parent as Record<string | number, Json>)[s.key])
        .filter(
          (v): v is { [key: string]: Json } => !!v && typeof v === "object" && !Array.isArray(v),
        );
      const target = objects.length ? objects[m.at % objects.length]! : root;
      if (!target || typeof target !== "object" || Array.isArray(target)) return root;
      // defineProperty: a plain assignment to "__proto__" would set the prototype instead, while
      // JSON.parse (what every transport does) creates an own key of that name.
      Object.defineProperty(target, m.op === "protoKey" ? "__proto__" : m.key, {
        value: m.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      return root;
    }
    case "duplicateStep":
      if (steps?.length) steps.push(structuredClone(steps[m.at % steps.length]!));
      return root;
    case "cycle":
      if (steps && steps.length >= 1) {
        const a = m.at % steps.length;
        edgesOf(root).push({ from: stepId(a), to: stepId(0) }, { from: stepId(0), to: stepId(a) });
      }
      return root;
    case "danglingEdge":
      edgesOf(root).push({ from: steps ? stepId(m.at % steps.length) : "x", to: m.key });
      return root;
  }
}

/**
 * Any value a client could send as a definition; mostly near-valid, so checks past the schema run.
 * Each goes through JSON text and back, as over every transport: plain objects (fast-check also
 * makes null-prototype ones, which no JSON parser returns) with `__proto__` as an own key.
 */
export function arbitraryFuzzedDefinition(): fc.Arbitrary<unknown> {
  return fc
    .oneof(
      { weight: 2, arbitrary: arbitraryDefinition() as fc.Arbitrary<unknown> },
      {
        weight: 6,
        arbitrary: fc
          .tuple(arbitraryDefinition(), fc.array(mutation, { minLength: 1, maxLength: 4 }))
          .map(([d, ms]) =>
            ms.reduce<Json>((acc, m) => applyMutation(acc, m), structuredClone(d) as Json),
          ),
      },
      { weight: 1, arbitrary: fc.dictionary(fc.string(), junkValue, { maxKeys: 5 }) },
      { weight: 1, arbitrary: junkValue },
    )
    .map((v) => JSON.parse(JSON.stringify(v)) as unknown);
}

/**
 * The same JSON with every object's keys in another order (a deterministic shuffle by `seed`):
 * what a client, jsonb or another serializer may hand back for the same definition.
 */
export function shuffleKeys<T>(value: T, seed: number): T {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const [k, c] of entries)
      Object.defineProperty(out, k, {
        value: walk(c),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    return out;
  };
  return walk(value) as T;
}

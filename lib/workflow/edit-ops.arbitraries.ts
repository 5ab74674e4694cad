/**
 * fast-check generators of valid definitions, for the property tests of edit-ops.ts and of the
 * editor's flow mapping (test support only; nothing in the app imports it).
 *
 * Coverage: 1–7 top-level steps of 12 types with the starter configs (`starterConfig`), explicit
 * DAG edges over real ports (true/false, approved/rejected, done, error) from lower to higher
 * array index — so acyclic by construction — or implicit array order; omitted or written default
 * ports; `onFailure`; `when` dependencies on earlier steps; config templates reading a direct
 * predecessor (so the reference is upstream); at most one loop with a 1–3 step body (implicit or
 * explicit chain, `{{ loop.item }}` and body-internal references); an optional workflow `output`.
 */
import fc from "fast-check";
import { defaultPortOf } from "./catalog";
import type { WorkflowDefinitionInput } from "./definition";
import { outputPortsOf, starterConfig } from "./edit-ops";
import type { EdgeInput, StepInput, StepType } from "./steps";

export const GENERATED_TYPES = [
  "transform",
  "condition",
  "http",
  "approval",
  "delay",
  "llm",
  "emit_event",
  "notify",
  "code",
  "wait_for_event",
  "subworkflow",
  "return",
  "loop",
] as const satisfies readonly StepType[];

interface Seed {
  readonly types: readonly (typeof GENERATED_TYPES)[number][];
  readonly implicitOrder: boolean;
  readonly implicitBody: boolean;
  readonly bodySize: number;
  readonly hasOutput: boolean;
  readonly bits: readonly number[];
}

export function arbitraryDefinition(): fc.Arbitrary<WorkflowDefinitionInput> {
  return fc
    .record({
      types: fc.array(fc.constantFrom(...GENERATED_TYPES), { minLength: 1, maxLength: 7 }),
      implicitOrder: fc.boolean(),
      implicitBody: fc.boolean(),
      bodySize: fc.integer({ min: 1, max: 3 }),
      hasOutput: fc.boolean(),
      bits: fc.array(fc.nat({ max: 1_000 }), { minLength: 16, maxLength: 64 }),
    })
    .map(buildDefinition);
}

function buildDefinition(seed: Seed): WorkflowDefinitionInput {
  let cursor = 0;
  const pick = (n: number) => seed.bits[cursor++ % seed.bits.length]! % n;
  const last = seed.types.length - 1;
  let hasLoop = false;
  const types = seed.types.map((type, i): StepType => {
    if (type === "loop" && hasLoop) return "transform";
    if (type === "loop") hasLoop = true;
    // In array order a return must come last (nothing may follow it).
    if (type === "return" && seed.implicitOrder && i !== last) return "transform";
    return type;
  });
  const ids = types.map((_, i) => `s${i}`);
  const edges: EdgeInput[] = [];
  const predecessors: string[][] = ids.map(() => []);
  if (!seed.implicitOrder) {
    const seen = new Set<string>();
    for (let to = 1; to < ids.length; to++) {
      for (let from = 0; from < to; from++) {
        const ports = outputPortsOf(types[from]!);
        if (ports.length === 0 || pick(3) !== 0) continue;
        const port = ports[pick(ports.length)]!;
        const key = `${from}:${port}:${to}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const writePort = port !== defaultPortOf(types[from]!) || pick(2) === 0;
        const onFailure =
          port !== "error" && pick(4) === 0 ? (pick(2) === 0 ? "continue" : "fail_run") : undefined;
        edges.push({
          from: ids[from]!,
          to: ids[to]!,
          ...(writePort ? { port } : {}),
          ...(onFailure ? { onFailure } : {}),
        });
        predecessors[to]!.push(ids[from]!);
      }
    }
  } else {
    ids.forEach((_, i) => predecessors[i]!.push(...ids.slice(0, i)));
  }
  const steps = types.map((type, i): StepInput => {
    const id = ids[i]!;
    const preds = predecessors[i]!;
    const upstream = preds.length ? preds[pick(preds.length)] : undefined;
    const step: Record<string, unknown> = {
      id,
      type,
      config: configFor(type, id, upstream, seed, pick),
    };
    if (i > 0 && pick(4) === 0)
      step.when = { ref: `steps.${ids[pick(i)]}.status`, eq: "completed" };
    if (pick(5) === 0) step.name = `Step ${i}`;
    return step as StepInput;
  });
  const definition: WorkflowDefinitionInput = {
    schemaVersion: 1,
    name: "Generated",
    steps,
    ...(seed.implicitOrder ? {} : { edges }),
  };
  if (seed.hasOutput)
    definition.output = { result: `{{ steps.${ids[pick(ids.length)]}.output.data }}` };
  return definition;
}

function configFor(
  type: StepType,
  id: string,
  upstream: string | undefined,
  seed: Seed,
  pick: (n: number) => number,
): unknown {
  const read = upstream ? `{{ steps.${upstream}.output.data }}` : "{{ lastOutput.data }}";
  switch (type) {
    case "transform":
      return { value: { from: read, literal: "steps.s0 is text, not a reference" } };
    case "condition":
      return {
        condition: {
          ref: upstream ? `steps.${upstream}.output.data` : "lastOutput.data",
          exists: true,
        },
      };
    case "llm":
      return { prompt: `Summarize ${read}` };
    case "loop": {
      const bodyIds = Array.from({ length: seed.bodySize }, (_, k) => `${id}_b${k}`);
      const bodySteps = bodyIds.map((bodyId, k) => ({
        id: bodyId,
        type: "transform" as const,
        config: {
          value:
            k > 0 && pick(2) === 0
              ? `{{ steps.${bodyIds[k - 1]}.output.data }}`
              : "{{ loop.item }}",
        },
      }));
      const bodyEdges = bodyIds.slice(1).map((to, k) => ({ from: bodyIds[k]!, to }));
      return {
        items: upstream ? `{{ steps.${upstream}.output.data }}` : [1, 2],
        body: { steps: bodySteps, ...(seed.implicitBody ? {} : { edges: bodyEdges }) },
      };
    }
    default:
      return starterConfig(type);
  }
}

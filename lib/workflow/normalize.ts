/**
 * Normalization: the parsed definition with every default explicit — per-field defaults from the
 * schema, plus edge ports (whose default depends on the source step's type). Throws a
 * DefinitionValidationError carrying the schema issues when the input does not parse.
 */
import { defaultPortOf } from "./catalog";
import { WorkflowDefinition } from "./definition";
import type { GraphEdgeLike } from "./graph";
import { DefinitionValidationError, type IssuePath, type ValidationIssue } from "./issues";
import { fromZodIssue } from "./zod-issues";
import type { z } from "zod";
import type { Edge, Step } from "./steps";
import { allowedKeysAt } from "./schema-walk";

export function normalizeDefinition(input: unknown): WorkflowDefinition {
  const parsed = WorkflowDefinition.safeParse(input);
  if (!parsed.success)
    throw new DefinitionValidationError(schemaIssues(input, parsed.error.issues));
  return fillEdgePorts(parsed.data);
}

/** zod issues of a failed WorkflowDefinition parse, as validation issues. */
export function schemaIssues(
  input: unknown,
  issues: readonly z.core.$ZodIssue[],
): ValidationIssue[] {
  const allowed = (path: IssuePath) => allowedKeysAt(WorkflowDefinition, path, input);
  return issues.flatMap((issue) => fromZodIssue(issue, input, allowed));
}

/** Fills every edge's port with the source type's primary port (top level and loop bodies). */
export function fillEdgePorts(definition: WorkflowDefinition): WorkflowDefinition {
  return {
    ...definition,
    steps: definition.steps.map(fillBodyPorts),
    ...(definition.edges ? { edges: withPorts(definition.edges, definition.steps) } : {}),
  };
}

function fillBodyPorts(step: Step): Step {
  if (step.type !== "loop" || !step.config.body) return step;
  const body = step.config.body;
  const steps = body.steps.map(fillBodyPorts);
  return {
    ...step,
    config: {
      ...step.config,
      body: { ...body, steps, ...(body.edges ? { edges: withPorts(body.edges, steps) } : {}) },
    },
  };
}

function withPorts<E extends GraphEdgeLike>(edges: readonly E[], steps: readonly Step[]): E[] {
  if (edges.every((edge) => edge.port !== undefined)) return [...edges];
  const types = new Map(steps.map((s) => [s.id, s.type]));
  return edges.map((edge) =>
    edge.port !== undefined ? edge : { ...edge, port: defaultPortOf(types.get(edge.from) ?? "") },
  );
}

/** The edges a step list runs with: the explicit ones, or the array-order chain when omitted. */
export function effectiveEdges(
  steps: readonly Pick<Step, "id" | "type">[],
  edges: readonly Edge[] | undefined,
): Edge[] {
  if (edges) {
    const types = new Map(steps.map((s) => [s.id, s.type]));
    return edges.map((e) => ({ ...e, port: e.port ?? defaultPortOf(types.get(e.from) ?? "") }));
  }
  return steps.slice(1).map((step, i) => ({
    from: steps[i]!.id,
    to: step.id,
    port: defaultPortOf(steps[i]!.type),
    onFailure: "skip" as const,
  }));
}

/**
 * Required approvals (RFC 001 §12): a workspace policy names kinds of steps — a step type, or
 * `http_write` for an http step whose method changes something — that must come after a human
 * approval on every path from the start of the workflow. A path counts as approved only where it
 * leaves an approval step through its `approved` port, on an edge that does not `continue` past a
 * failed gate, from a gate that does not approve itself on timeout. Loop bodies are checked with
 * the path to their loop step in front: a gate before the loop covers the whole body.
 */
import { buildGraph, pathFromRoot, reachFromRoots, type GraphEdge } from "./graph";
import { STEP_TYPES, type Edge, type Step, type StepType } from "./steps";

/** http methods that only read: an http step with any other method is `http_write`. */
export const SAFE_HTTP_METHODS: readonly string[] = ["GET", "HEAD", "OPTIONS"];

/** What a workspace can require an approval before: any step type but approval, or http writes. */
export const APPROVAL_TARGETS = [
  "http_write",
  ...STEP_TYPES.filter((t): t is Exclude<StepType, "approval"> => t !== "approval"),
] as const;
export type ApprovalTarget = (typeof APPROVAL_TARGETS)[number];

export function isApprovalTarget(value: unknown): value is ApprovalTarget {
  return typeof value === "string" && (APPROVAL_TARGETS as readonly string[]).includes(value);
}

/** A step the policy covers that some path reaches without crossing an approval. */
export interface ApprovalViolation {
  readonly stepId: string;
  /** The step's JSON path in the definition (loop bodies included). */
  readonly path: ReadonlyArray<string | number>;
  /** `http POST`, `script`, … */
  readonly kind: string;
  /** One unapproved path: `start → fetch → charge` (loop bodies as `each/charge`). */
  readonly route: string;
  readonly message: string;
}

interface Scope {
  readonly steps: readonly Step[];
  readonly edges?: readonly Edge[] | undefined;
}

/** Steps a definition (or loop body) runs, with edges; omitted edges mean array order. */
export function requiredApprovalViolations(
  definition: Scope,
  targets: readonly ApprovalTarget[],
): ApprovalViolation[] {
  if (targets.length === 0) return [];
  const out: ApprovalViolation[] = [];
  checkScope(definition, new Set(targets), { route: ["start"], prefix: "", path: [] }, out);
  return out;
}

/** The step's kind when the policy covers it, else null. */
function coveredKind(step: Step, targets: ReadonlySet<ApprovalTarget>): string | null {
  if (step.type === "http") {
    const method = step.config.method;
    if (targets.has("http")) return `http ${method}`;
    if (targets.has("http_write") && !SAFE_HTTP_METHODS.includes(method)) return `http ${method}`;
    return null;
  }
  return (targets as ReadonlySet<string>).has(step.type) ? step.type : null;
}

/** Why an edge out of an approval step does not count as approved, or null when it does. */
function unapprovedReason(edge: GraphEdge, gate: Step): string | null {
  if (gate.type !== "approval") return null;
  if (edge.port !== "approved") return `leaves by its ${edge.port} port`;
  if (edge.onFailure === "continue") return "continues past it if it fails";
  if (gate.config.onTimeout === "approve") return "approves itself on timeout";
  return null;
}

function checkScope(
  scope: Scope,
  targets: ReadonlySet<ApprovalTarget>,
  at: { route: readonly string[]; prefix: string; path: ReadonlyArray<string | number> },
  out: ApprovalViolation[],
): void {
  const graph = buildGraph({ steps: scope.steps, edges: scope.edges });
  // Only edges leaving a real gate through `approved` stop the walk: what is reached is unapproved.
  const reached = reachFromRoots(graph, (edge) => {
    const gate = graph.nodes.get(edge.from)!.step;
    return gate.type === "approval" && unapprovedReason(edge, gate) === null;
  });
  for (const id of graph.ids) {
    if (!reached.has(id)) continue;
    const node = graph.nodes.get(id)!;
    const route = [...at.route, ...routeTo(graph, reached, id, at.prefix)];
    const path = [...at.path, "steps", node.index];
    const kind = coveredKind(node.step, targets);
    if (kind !== null)
      out.push({
        stepId: id,
        path,
        kind,
        route: route.join(" → "),
        message: `step "${at.prefix}${id}" (${kind}) is reachable without an approval: ${route.join(" → ")}. Put an approval step before it on every path (workspace policy: required approvals).`,
      });
    if (node.step.type === "loop" && node.step.config.body)
      checkScope(
        node.step.config.body,
        targets,
        { route, prefix: `${at.prefix}${id}/`, path: [...path, "config", "body"] },
        out,
      );
  }
}

/** `fetch → ask (leaves by its rejected port) → charge`: the steps, and why a gate did not count. */
function routeTo(
  graph: ReturnType<typeof buildGraph<Step>>,
  reached: ReadonlyMap<string, GraphEdge | null>,
  id: string,
  prefix: string,
): string[] {
  const edges = pathFromRoot(reached, id);
  const first = edges[0]?.from ?? id;
  const names = [`${prefix}${first}`];
  for (const edge of edges) {
    const why = unapprovedReason(edge, graph.nodes.get(edge.from)!.step);
    if (why) names[names.length - 1] += ` (${why})`;
    names.push(`${prefix}${edge.to}`);
  }
  return names;
}

/** validateDefinition's checks of one level's edges and graph shape (cycles, reachability). */
import { defaultPortOf, portsOf } from "./catalog";
import { unreachableSteps, type WorkflowGraph } from "./graph";
import { findCycles } from "./graph-cycles";
import { makeIssue, type IssuePath } from "./issues";
import { didYouMean, isPlainObject, quote } from "./json";
import { isStepType } from "./steps";
import { article, type Checker, type Level, type StepView } from "./validate-model";

// --- edges -----------------------------------------------------------------------------------

export function checkEdges(checker: Checker, level: Level, edges: readonly unknown[]): void {
  const byId = new Map(level.views.map((v) => [v.id, v]));
  const seen = new Map<string, number>();
  edges.forEach((edge, index) => {
    if (!isPlainObject(edge) || typeof edge.from !== "string" || typeof edge.to !== "string")
      return; // schema issue already
    const at = () => edgePath(level, index);
    const label = () => edgeLabel(level, index, edge.from as string, edge.to as string);
    const source = byId.get(edge.from);
    const target = byId.get(edge.to);
    if (!source)
      checker.issues.push(
        makeIssue(
          "UNKNOWN_EDGE_SOURCE",
          `${label()}: source step ${quote(edge.from)} ${missingStepHint(checker, level, edge.from)}`,
          [...at(), "from"],
          { edgeIndex: index },
        ),
      );
    if (!target)
      checker.issues.push(
        makeIssue(
          "UNKNOWN_EDGE_TARGET",
          `${label()}: target step ${quote(edge.to)} ${missingStepHint(checker, level, edge.to)}`,
          [...at(), "to"],
          { edgeIndex: index },
        ),
      );
    if (source?.type === "return") {
      checker.issues.push(
        makeIssue(
          "RETURN_HAS_OUTGOING_EDGES",
          `Step ${quote(source.id)} (return) ends the run, so ${label().charAt(0).toLowerCase()}${label().slice(1)} can never be taken; remove the edge.`,
          at(),
          { stepId: source.id, edgeIndex: index },
        ),
      );
    } else if (
      source &&
      isStepType(source.type) &&
      typeof edge.port === "string" &&
      !portsOf(source.type).includes(edge.port)
    ) {
      checker.issues.push(
        makeIssue(
          "UNKNOWN_PORT",
          `Step ${quote(edge.to)}: edge from ${quote(edge.from)} uses port ${quote(edge.port)}, but ${article(source.type)} ${source.type} step only has ports ${portsOf(source.type).join(", ")}.`,
          [...at(), "port"],
          { stepId: edge.to, edgeIndex: index },
        ),
      );
    }
    if (edge.port === "error" && (edge.onFailure === "continue" || edge.onFailure === "fail_run")) {
      checker.issues.push(
        makeIssue(
          "ON_FAILURE_IGNORED",
          `${label()}: onFailure ${quote(edge.onFailure)} has no effect on an edge from the error port (it runs exactly when ${quote(edge.from)} fails); remove it.`,
          [...at(), "onFailure"],
          { edgeIndex: index },
        ),
      );
    }
    const port = typeof edge.port === "string" ? edge.port : defaultPortOf(source?.type ?? "");
    const key = `${edge.from}\u0000${port}\u0000${edge.to}`;
    const first = seen.get(key);
    if (first !== undefined) {
      checker.issues.push(
        makeIssue(
          "DUPLICATE_EDGE",
          `${label()}: duplicates edge #${first} (same source, port ${quote(port)} and target); remove one.`,
          at(),
          { edgeIndex: index },
        ),
      );
    } else seen.set(key, index);
  });
}

// Paths and labels are built only when an issue is reported: for every valid edge it was measurable.
function edgePath(level: Level, index: number): IssuePath {
  return [...level.path, "edges", index];
}

function edgeLabel(level: Level, index: number, from: string, to: string): string {
  return `Edge #${index} (${quote(from)} → ${quote(to)})${level.parent ? ` in the body of loop ${quote(level.parent.loopId)}` : ""}`;
}

function missingStepHint(checker: Checker, level: Level, id: string): string {
  const owner = checker.owners.get(id);
  if (owner !== undefined) {
    const where = owner === null ? "at the top level" : `in the body of loop ${quote(owner)}`;
    return `is ${where}, not ${level.parent ? `in the body of loop ${quote(level.parent.loopId)}` : "at the top level"}; edges cannot cross a loop boundary.`;
  }
  return `does not exist.${didYouMean(id, level.ids)}`;
}

export function checkChainReturn(checker: Checker, level: Level): void {
  const views = level.views;
  views.forEach((view, i) => {
    if (view.type !== "return" || i === views.length - 1) return;
    const after = views
      .slice(i + 1, i + 4)
      .map((v) => quote(v.id))
      .join(", ");
    checker.issues.push(
      makeIssue(
        "RETURN_HAS_OUTGOING_EDGES",
        `Step ${quote(view.id)} (return) ends the run, but without edges steps run in array order, so ${after}${views.length - i - 1 > 3 ? ", …" : ""} would never run; move the return last or add edges.`,
        view.path,
        { stepId: view.id },
      ),
    );
  });
}

// --- graph shape -----------------------------------------------------------------------------

export function checkCycles(
  checker: Checker,
  level: Level,
  graph: WorkflowGraph<StepView>,
): Set<string> {
  const onCycle = new Set<string>();
  if (graph.isAcyclic) return onCycle;
  for (const cycle of findCycles(graph)) {
    cycle.steps.forEach((id) => onCycle.add(id));
    const loop = [...cycle.steps, cycle.steps[0]!].map((id) => quote(id)).join(" → ");
    // Without edges, steps run in array order: those links are implicit (via -1) and have no
    // edge to point at, so the issue points at a written link (a cycle always has one).
    const links = cycle.links
      .map((l) =>
        l.via === "when"
          ? `${quote(l.to)}.when references ${quote(l.from)}`
          : l.via < 0
            ? `${quote(l.from)} comes before ${quote(l.to)} in array order`
            : `edge #${l.via}`,
      )
      .join(", ");
    const first = cycle.links.find((l) => l.via === "when" || l.via >= 0) ?? cycle.links[0]!;
    const path =
      first.via === "when"
        ? [...graph.nodes.get(first.to)!.step.path, "when"]
        : first.via >= 0
          ? [...level.path, "edges", first.via]
          : [...graph.nodes.get(first.to)!.step.path];
    checker.issues.push(
      makeIssue(
        "CYCLE",
        `Steps form a cycle: ${loop} (${links}). A workflow must be acyclic; remove one of these links.`,
        path,
        {
          stepId: cycle.steps[0],
          ...(first.via !== "when" && first.via >= 0 ? { edgeIndex: first.via } : {}),
        },
      ),
    );
  }
  return onCycle;
}

export function checkReachability(
  checker: Checker,
  level: Level,
  graph: WorkflowGraph<StepView>,
  onCycle: ReadonlySet<string>,
  explicitEdges: boolean,
): void {
  for (const id of unreachableSteps(graph)) {
    if (onCycle.has(id)) continue;
    checker.issues.push(
      makeIssue(
        "UNREACHABLE_STEP",
        `Step ${quote(id)} can never run: every path to it goes through a cycle or a return step.`,
        graph.nodes.get(id)!.step.path,
        { stepId: id },
      ),
    );
  }
  if (!explicitEdges || graph.ids.length < 2) return;
  const whenTargets = new Set([...graph.whenDeps.values()].flat());
  for (const id of graph.ids) {
    if (
      graph.incoming.get(id)!.length ||
      graph.outgoing.get(id)!.length ||
      graph.whenDeps.get(id)!.length ||
      whenTargets.has(id)
    )
      continue;
    checker.issues.push(
      makeIssue(
        "ISOLATED_STEP",
        `Step ${quote(id)} has no edges: it starts as soon as the run${level.parent ? " iteration" : ""} starts, in parallel with the other first steps. Connect it if it should run later.`,
        graph.nodes.get(id)!.step.path,
        { stepId: id },
      ),
    );
  }
}

/**
 * validateDefinition's reference checks: every `{{ … }}` in a step or the workflow output names
 * something that exists and has run (upstream, not skipped on the reader's path) when it is read.
 */
import { ERROR_PORT, portsOf, STEP_CATALOG } from "./catalog";
import { fieldText, makeIssue, type IssueCode } from "./issues";
import { didYouMean, isPlainObject, quote } from "./json";
import { stepReferences } from "./refs";
import { isStepType } from "./steps";
import { type TemplateReference } from "./templates";
import { scanValue, type LocatedReference, type LocatedTemplateError } from "./template-scan";
import {
  article,
  declared,
  type Checker,
  type Level,
  type Report,
  type StepView,
} from "./validate-model";

export function checkStepReferences(checker: Checker, level: Level, view: StepView): void {
  const { refs, errors, whenRefs } = stepReferences(view.raw);
  const subject = `Step ${quote(view.id)} (${view.type})`;
  for (const { error, location } of errors) {
    checker.issues.push(
      makeIssue(
        error.code,
        `${subject}: ${fieldText([...location])}: ${error.message}`,
        [...view.path, ...location],
        { stepId: view.id },
      ),
    );
  }
  let warnedCommand = false;
  for (const located of refs) {
    const at = `${subject}: ${fieldText([...located.location])}`;
    const path = [...view.path, ...located.location];
    const report = (code: IssueCode, message: string) =>
      checker.issues.push(makeIssue(code, `${at} ${message}`, path, { stepId: view.id }));
    const ref = located.reference;
    if (ref.root === "steps")
      checkStepRef(checker, level, view, ref.stepId, whenRefs.has(located), ref, report);
    else checkCommonRef(checker, ref, enclosingLoop(level), report);
    if (
      ref.root === "secrets" &&
      !secretAllowed(view.type, located.location, whenRefs.has(located))
    ) {
      const fields = isStepType(view.type) ? STEP_CATALOG[view.type].secretFields : [];
      const allowed = fields.length
        ? `secrets may only be used in ${fields.map((f) => `config.${f}`).join(", ")} of ${article(view.type)} ${view.type} step`
        : `${view.type} steps cannot use secrets`;
      report(
        "SECRET_NOT_ALLOWED",
        `references {{ secrets.${ref.name} }}, but ${allowed}, so secret values never end up in stored inputs or outputs.`,
      );
    }
    if (view.type === "script" && located.location[1] === "command" && !warnedCommand) {
      warnedCommand = true;
      report(
        "TEMPLATE_IN_COMMAND",
        `interpolates {{ ${ref.path.source} }} into a shell command; pass values through env instead (env: { VALUE: "{{ ${ref.path.source} }}" } and "$VALUE" in the command) to rule out shell injection.`,
      );
    }
  }
}

function secretAllowed(
  type: string,
  location: readonly (string | number)[],
  inWhen: boolean,
): boolean {
  if (inWhen || location[0] !== "config" || !isStepType(type)) return false;
  return STEP_CATALOG[type].secretFields.includes(String(location[1]));
}

/** The innermost loop around a level (its id and raw config), or undefined at the top level. */
function enclosingLoop(level: Level): { id: string; config: Record<string, unknown> } | undefined {
  const parent = level.parent;
  if (!parent) return undefined;
  const raw = parent.level.views.find((v) => v.id === parent.loopId)?.raw.config;
  return { id: parent.loopId, config: isPlainObject(raw) ? raw : {} };
}

/** Why `loop.<field>` does not exist in this loop (its config decides), or null. */
function loopFieldProblem(
  loop: { id: string; config: Record<string, unknown> },
  field: string,
): string | null {
  const batched = loop.config.batchSize !== undefined;
  if (field === "item" && batched)
    return `loop ${quote(loop.id)} runs in batches (batchSize), so there is no loop.item; use loop.batch (its items) and loop.index (the batch number).`;
  if (field === "batch" && !batched)
    return `loop ${quote(loop.id)} has no batchSize, so there is no loop.batch; use loop.item, or set a batchSize.`;
  if (field === "state" && loop.config.state === undefined)
    return `loop ${quote(loop.id)} declares no "state", so there is no loop.state; add "state" and "stateFrom" to its config.`;
  return null;
}

function checkCommonRef(
  checker: Checker,
  ref: TemplateReference,
  loop: { id: string; config: Record<string, unknown> } | undefined,
  report: Report,
): void {
  switch (ref.root) {
    case "input":
      if (ref.name !== undefined && !checker.inputs.has(ref.name)) {
        report(
          "UNKNOWN_INPUT_REFERENCE",
          `references {{ ${ref.path.source} }}, but the workflow declares no input ${quote(ref.name)}${declared(checker.inputs)}.${didYouMean(ref.name, checker.inputs)}`,
        );
      }
      return;
    case "vars":
      if (ref.name !== undefined && !checker.vars.has(ref.name)) {
        report(
          "UNKNOWN_VARIABLE_REFERENCE",
          `references {{ ${ref.path.source} }}, but the workflow declares no variable ${quote(ref.name)}${declared(checker.vars)}.${didYouMean(ref.name, checker.vars)}`,
        );
      }
      return;
    case "loop": {
      if (!loop) {
        report(
          "LOOP_REFERENCE_OUTSIDE_LOOP",
          `references {{ ${ref.path.source} }}, which only exists inside a loop body.`,
        );
        return;
      }
      const problem = loopFieldProblem(loop, ref.field);
      if (problem)
        report("LOOP_VARIABLE_UNAVAILABLE", `references {{ ${ref.path.source} }}, but ${problem}`);
      return;
    }
    default:
      return;
  }
}

function checkStepRef(
  checker: Checker,
  level: Level,
  view: StepView,
  target: string,
  inWhen: boolean,
  ref: TemplateReference,
  report: Report,
): void {
  const shown = `{{ ${ref.path.source} }}`;
  if (target === view.id) {
    report(
      "REFERENCE_NOT_UPSTREAM",
      `references ${shown}, its own step; a step cannot use its own output or status.`,
    );
    return;
  }
  if (level.ids.has(target)) {
    // In `when`, a reference is a dependency: the step waits for it (cycles are reported separately).
    const decided = level.ordered!.has(view.id);
    if (!inWhen && decided && !level.ancestry!.isUpstream(target, view.id)) {
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, but ${quote(target)} is not upstream of ${quote(view.id)}, so it may not have finished; add an edge path from ${quote(target)} to ${quote(view.id)} (or reference it in ${quote(view.id)}.when to wait for it).`,
      );
    } else if (
      !inWhen &&
      decided &&
      ref.root === "steps" &&
      ref.field === "output" &&
      mayBeSkippedFor(level, target, view.id)
    ) {
      report(
        "MAY_READ_SKIPPED_STEP",
        `references ${shown}, but ${quote(target)} may be skipped on a path where ${quote(view.id)} still runs (a branch, a when, an approval port or an error edge leads to it); the reference then reads nothing (null, or the key is left out).`,
      );
    }
    return;
  }
  for (let p = level.parent; p; p = p.level.parent) {
    if (!p.level.ids.has(target)) continue;
    if (target === p.loopId)
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, the loop that contains it, which has not finished while its body runs; use loop.item / loop.index.`,
      );
    else if (!p.level.ancestry!.isUpstream(target, p.loopId))
      report(
        "REFERENCE_NOT_UPSTREAM",
        `references ${shown}, but ${quote(target)} is not upstream of loop ${quote(p.loopId)}, so it may not have finished when the body runs.`,
      );
    return;
  }
  const owner = checker.owners.get(target);
  if (owner !== undefined && owner !== null) {
    report(
      "REFERENCE_INTO_LOOP_BODY",
      `references ${shown}, but ${quote(target)} is inside the body of loop ${quote(owner)}, which runs once per item; use {{ steps.${owner}.output.data }} (the iteration values) instead.`,
    );
    return;
  }
  report(
    "UNKNOWN_STEP_REFERENCE",
    `references ${shown}, but there is no step ${quote(target)}.${didYouMean(target, checker.owners.keys())}`,
  );
}

/**
 * When each step of a level runs, as the set of decisions it needs ("gates"): an edge from a
 * port of a step with several ports (condition true/false, approval approved/rejected, loop
 * ports) or from the error port adds `<source>:<port>`; a `when` adds `when:<step>`; a step runs
 * when any incoming edge is taken, so its gates are those all incoming edges share — and when the
 * incoming edges differ only by ports that together cover every outcome of one source (the two
 * branches of a condition rejoining), that decision drops out. An empty set: the step runs
 * whenever the run does. Failures under the default skip policy are left out (every step would
 * be gated). Only ordered steps (no cycles) get an entry.
 */
function gatesIn(level: Level): ReadonlyMap<string, ReadonlySet<string>> {
  if (level.gates) return level.gates;
  const gates = new Map<string, ReadonlySet<string>>();
  const graph = level.graph;
  const outcomes = (id: string): readonly string[] => {
    const node = graph?.nodes.get(id);
    // portsOf already lists the error port after the type's own ports.
    return node && isStepType(node.type) ? portsOf(node.type) : [ERROR_PORT];
  };
  if (graph) {
    for (const id of graph.order) {
      const node = graph.nodes.get(id)!;
      const incoming = (graph.incoming.get(id) ?? []).filter((e) => gates.has(e.from));
      let mine = new Set<string>();
      if (incoming.length > 0) {
        const sets = incoming.map((e) => {
          const g = new Set(gates.get(e.from)!);
          if (e.port === ERROR_PORT || outcomes(e.from).length > 2) g.add(`${e.from}:${e.port}`);
          return g;
        });
        const shared = new Set([...sets[0]!].filter((x) => sets.every((g) => g.has(x))));
        const rest = sets.map((g) => [...g].filter((x) => !shared.has(x)));
        mine = shared;
        if (rest.some((r) => r.length > 0)) {
          // Covered when every edge differs only by one port of the same source and the ports
          // together are all of that source's outcomes (an edge with nothing left covers all).
          const sources = new Set(rest.flat().map((x) => x.slice(0, x.lastIndexOf(":"))));
          const covered =
            rest.some((r) => r.length === 0) ||
            (sources.size === 1 &&
              rest.every((r) => r.length === 1) &&
              (() => {
                const source = [...sources][0]!;
                const seen = new Set(rest.map((r) => r[0]!.slice(source.length + 1)));
                // The error outcome only matters when some edge leaves from it.
                return outcomes(source)
                  .filter((o) => o !== ERROR_PORT || seen.has(ERROR_PORT))
                  .every((o) => seen.has(o));
              })());
          if (!covered) mine.add(`join:${id}`);
        }
      }
      if (node.step.when !== undefined) mine.add(`when:${id}`);
      gates.set(id, mine);
    }
  }
  level.gates = gates;
  return gates;
}

/** Whether `target` may be skipped on a path where `reader` runs (null reader: the run's end). */
function mayBeSkippedFor(level: Level, target: string, reader: string | null): boolean {
  const gates = gatesIn(level);
  const needs = gates.get(target);
  if (!needs || needs.size === 0) return false;
  if (reader === null) return true;
  const has = gates.get(reader);
  return !has || [...needs].some((g) => !has.has(g));
}

export function checkOutput(checker: Checker): void {
  const output = checker.root.output;
  if (output === undefined) return;
  const refs: LocatedReference[] = [];
  const errors: LocatedTemplateError[] = [];
  scanValue(output, ["output"], refs, errors);
  for (const { error, location } of errors)
    checker.issues.push(
      makeIssue(error.code, `Workflow output: ${fieldText([...location])}: ${error.message}`, [
        ...location,
      ]),
    );
  for (const { reference: ref, location } of refs) {
    const report: Report = (code, message) =>
      checker.issues.push(
        makeIssue(code, `Workflow ${fieldText([...location])} ${message}`, [...location]),
      );
    if (ref.root === "steps") {
      const owner = checker.owners.get(ref.stepId);
      const top = checker.topLevel;
      if (owner === null && ref.field === "output" && top && mayBeSkippedFor(top, ref.stepId, null))
        checker.issues.push(
          makeIssue(
            "MAY_READ_SKIPPED_STEP",
            `Workflow ${fieldText([...location])} references {{ ${ref.path.source} }}, but ${quote(ref.stepId)} may be skipped on some paths; the output then reads nothing there (null, or the key is left out).`,
            [...location],
          ),
        );
      if (owner === undefined)
        report(
          "UNKNOWN_STEP_REFERENCE",
          `references {{ ${ref.path.source} }}, but there is no step ${quote(ref.stepId)}.${didYouMean(ref.stepId, checker.owners.keys())}`,
        );
      else if (owner !== null)
        report(
          "REFERENCE_INTO_LOOP_BODY",
          `references {{ ${ref.path.source} }}, but ${quote(ref.stepId)} is inside the body of loop ${quote(owner)}; use {{ steps.${owner}.output.data }} instead.`,
        );
    } else if (ref.root === "secrets") {
      report(
        "SECRET_NOT_ALLOWED",
        `references {{ secrets.${ref.name} }}; the run output is stored, so it cannot contain secrets.`,
      );
    } else checkCommonRef(checker, ref, undefined, report);
  }
}

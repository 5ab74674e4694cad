/**
 * Pure edits of a workflow definition (the editor's one edit module): every operation takes a
 * `Definition` and returns a new one, leaving untouched parts exactly as written, so the JSON
 * view shows only the edit. Refusals explain themselves (`{ ok: false, reason }`).
 *
 *   levels.ts     the graphs of a definition (top level, loop bodies) and their edges
 *   connect.ts    connection rules, connect, rename
 *   insert.ts     fresh ids, starter configs, insert after a step
 *   delete.ts     delete steps, the references left dangling
 *   clipboard.ts  copy, paste, duplicate
 *   fields.ts     per-field edits by document path (the inspector), edge port / failure policy
 *   canvas.ts     unconnected add, edge removal, layout (positions, viewport, notes), find
 */
export {
  levelOf,
  levelsOf,
  loopBodyOf,
  outputPortsOf,
  resolvedEdges,
  type Definition,
  type DocPath,
  type EditResult,
  type GraphDraft,
  type Level,
  type Refusal,
  type ResolvedEdge,
  type XY,
} from "./levels";
export * from "./connect";
export * from "./insert";
export * from "./delete";
export * from "./clipboard";
export * from "./fields";
export * from "./canvas";

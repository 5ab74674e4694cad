/**
 * Step type → handler. Every catalog entry (lib/workflow/catalog.ts) has exactly one entry here,
 * checked at start-up by the engine and by a test. Side-effect and value types are `action`s
 * (one durable step per attempt); types that wait or nest (approval, delay, wait_for_event,
 * loop, subworkflow, task) are `orchestrated` by the engine with durable waits, sleeps and invokes.
 */
import { STEP_TYPES, type StepConfig, type StepType } from "@/lib/workflow";
import {
  ORCHESTRATED_STEP_TYPES,
  type ActionStepType,
  type OrchestratedStepType,
} from "@/lib/workflow/step-traits";
import { agentHandler } from "./agent";
import { codeHandler } from "./code";
import { conditionHandler } from "./condition";
import { emitEventHandler } from "./emit-event";
import { httpHandler } from "./http";
import { llmHandler } from "./llm";
import { notifyHandler } from "./notify";
import { proposeChangeHandler } from "./propose-change";
import { returnHandler } from "./return";
import { scriptHandler } from "./script";
import { toolHandler } from "./tool";
import { transformHandler } from "./transform";
import type { ActionHandler } from "./types";

// Orchestrated types (`execution: "orchestrated"` in the catalog's traits) have no handler.
export const ORCHESTRATED_TYPES = ORCHESTRATED_STEP_TYPES;
export type OrchestratedType = OrchestratedStepType;
export type ActionType = ActionStepType;

export type StepHandlerEntry =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler types its own config
  { kind: "action"; handler: ActionHandler<any> } | { kind: "orchestrated" };

export const ACTION_HANDLERS: { readonly [T in ActionType]: ActionHandler<StepConfig<T>> } = {
  transform: transformHandler,
  condition: conditionHandler,
  http: httpHandler,
  script: scriptHandler,
  code: codeHandler,
  llm: llmHandler,
  agent: agentHandler,
  emit_event: emitEventHandler,
  notify: notifyHandler,
  propose_change: proposeChangeHandler,
  return: returnHandler,
  tool: toolHandler,
};

export function handlerFor(type: StepType): StepHandlerEntry {
  if ((ORCHESTRATED_TYPES as readonly string[]).includes(type)) return { kind: "orchestrated" };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the engine passes the parsed config of this type
  const handler = (ACTION_HANDLERS as Record<string, ActionHandler<any> | undefined>)[type];
  if (!handler) throw new Error(`No handler for step type "${type}"`);
  return { kind: "action", handler };
}

/** Types in the catalog without a handler, and handlers without a catalog entry. */
export function registryParity(): { missing: string[]; extra: string[] } {
  const known = new Set<string>([...ORCHESTRATED_TYPES, ...Object.keys(ACTION_HANDLERS)]);
  return {
    missing: STEP_TYPES.filter((t) => !known.has(t)),
    extra: [...known].filter((t) => !(STEP_TYPES as readonly string[]).includes(t)),
  };
}

/**
 * Event-trigger matching (SPEC §7), pure: a name pattern (exact, or a prefix ending in `*`) and an
 * optional structured condition evaluated with the event as `trigger.*`.
 */
import { type Condition } from "@/lib/workflow/conditions";
import { evaluateCondition } from "@/lib/workflow/condition-eval";

export interface WorkflowEvent {
  id: string;
  name: string;
  data: unknown;
  source?: Record<string, unknown>;
  at?: string;
}

export function eventNameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

export type EventMatch = { matches: true } | { matches: false; reason: string };

/** Whether an event trigger fires for an event; a filter that cannot be evaluated is a reason. */
export function matchEvent(
  config: { event: string; filter?: Condition },
  event: WorkflowEvent,
): EventMatch {
  if (!eventNameMatches(config.event, event.name))
    return { matches: false, reason: "name does not match" };
  if (!config.filter) return { matches: true };
  try {
    return evaluateCondition(config.filter, { trigger: event })
      ? { matches: true }
      : { matches: false, reason: "filter not met" };
  } catch (e) {
    return { matches: false, reason: `filter failed: ${(e as Error).message}` };
  }
}

/** Events caused by runs that events started form chains; past this depth they start nothing. */
export const MAX_EVENT_CHAIN_DEPTH = 8;

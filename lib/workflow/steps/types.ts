/** The step types (SPEC §4); each has a config schema in this folder and a record in catalog.ts. */
import { z } from "zod";

export const STEP_TYPES = [
  "transform",
  "condition",
  "http",
  "script",
  "code",
  "llm",
  "agent",
  "approval",
  "delay",
  "wait_for_event",
  "emit_event",
  "loop",
  "subworkflow",
  "notify",
  "propose_change",
  "return",
  "task",
  "tool",
] as const;
export const StepType = z.enum(STEP_TYPES);
export type StepType = z.infer<typeof StepType>;

export function isStepType(value: unknown): value is StepType {
  return typeof value === "string" && (STEP_TYPES as readonly string[]).includes(value);
}

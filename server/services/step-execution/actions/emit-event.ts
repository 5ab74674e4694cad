import type { StepConfig } from "@/lib/workflow";
import type { ActionHandler } from "./types";

/**
 * `emit_event`: publishes a workflow event (event triggers start runs; `wait_for_event` steps
 * resume). Delivered through the outbox, written with the step's completion.
 */
export const emitEventHandler: ActionHandler<StepConfig<"emit_event">> = async (ctx) => ({
  data: { event: ctx.config.event, data: ctx.config.data ?? {} },
  emit: [{ name: ctx.config.event, data: ctx.config.data ?? {} }],
});

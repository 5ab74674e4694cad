import type { StepConfig } from "@/lib/workflow";
import type { ActionHandler } from "./types";

/** `return`: ends the run successfully; its value is the run's output. */
export const returnHandler: ActionHandler<StepConfig<"return">> = async (ctx) => ({
  data: ctx.config.value ?? null,
});

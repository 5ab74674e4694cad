import type { StepConfig } from "@/lib/workflow";
import type { ActionHandler } from "./types";

/** `transform`: the value, with templates already resolved by the engine. No side effects. */
export const transformHandler: ActionHandler<StepConfig<"transform">> = async (ctx) => ({
  data: ctx.config.value ?? null,
});

import { evaluateCondition, type Condition, type StepConfig } from "@/lib/workflow";
import { StepFailure, type ActionHandler } from "./types";

/** `condition`: evaluates a structured condition over the run context and routes true/false. */
export const conditionHandler: ActionHandler<StepConfig<"condition">> = async (ctx) => {
  try {
    const result = evaluateCondition(ctx.config.condition as Condition, ctx.templateContext ?? {});
    return { data: result, port: result ? "true" : "false" };
  } catch (e) {
    throw new StepFailure(`The condition could not be evaluated: ${(e as Error).message}`, "user");
  }
};

import { traceCondition, type Condition, type StepConfig } from "@/lib/workflow";
import { StepFailure, type ActionHandler } from "./types";

/**
 * `condition`: evaluates a structured condition over the run context and routes true/false.
 * `meta.checks` records each comparison with its resolved operands (clipped), so the run page
 * can show `input.amount: 250 > 100 → true` rather than a bare `false`.
 */
export const conditionHandler: ActionHandler<StepConfig<"condition">> = async (ctx) => {
  try {
    const { result, checks, omitted } = traceCondition(
      ctx.config.condition as Condition,
      ctx.templateContext ?? {},
    );
    return {
      data: result,
      port: result ? "true" : "false",
      meta: { checks, ...(omitted ? { omittedChecks: omitted } : {}) },
    };
  } catch (e) {
    throw new StepFailure(`The condition could not be evaluated: ${(e as Error).message}`, "user");
  }
};

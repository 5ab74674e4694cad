import type { StepConfig } from "@/lib/workflow";
import { StepFailure, type ActionHandler } from "./types";

/**
 * `propose_change`: opens a change proposal for the running workflow. Proposals (review, risk,
 * dry run, apply) are not part of this release, so the step fails with a clear user error
 * instead of pretending to succeed.
 */
export const proposeChangeHandler: ActionHandler<StepConfig<"propose_change">> = async () => {
  throw new StepFailure("propose_change steps need change proposals, which this Sluice version does not provide yet", "user", { code: "NOT_AVAILABLE" });
};

import type { StepEffects } from "../run-driver/types";
import { handlerFor } from "@/server/services/step-execution/actions/registry";
import { StepFailure } from "@/server/services/step-execution/actions/types";
import {
  resolveActionConfig,
  runActionAttempt,
} from "@/server/services/step-execution/action-attempt";
import {
  checkApprovalBody,
  closeApprovalBody,
  openApprovalBody,
} from "@/server/services/step-execution/approval-bodies";
import { beginDelayBody, endDelayBody } from "@/server/services/step-execution/delay-bodies";
import { finishRunBody } from "@/server/services/step-execution/finish-bodies";
import {
  beginLoopBody,
  endLoopBody,
  resolveLoopStart,
} from "@/server/services/step-execution/loop-bodies";
import { recordSkipsBody, recordWaveBody } from "@/server/services/step-execution/record-bodies";
import { stepRuntime } from "@/server/services/step-execution/runtime";
import {
  checkChildBody,
  endChildBody,
  startChildBody,
} from "@/server/services/step-execution/subworkflow-bodies";
import {
  checkTaskBody,
  closeTaskBody,
  openTaskBody,
} from "@/server/services/step-execution/task-bodies";
import {
  beginWaitBody,
  endWaitBody,
  lookbackWaitBody,
} from "@/server/services/step-execution/wait-bodies";

/**
 * Step execution as the run driver calls it (`StepEffects`): built once here and handed to the
 * driver by the functions that start it (run-workflow.ts, proposal-dry-run.ts). The driver itself
 * imports server/ only as types, so its calls into step execution all go down through this object.
 */
export const stepEffects: StepEffects = {
  actions: { handlerFor, StepFailure, resolveActionConfig, runActionAttempt },
  bodies: {
    beginDelayBody,
    endDelayBody,
    beginWaitBody,
    endWaitBody,
    lookbackWaitBody,
    startChildBody,
    checkChildBody,
    endChildBody,
    beginLoopBody,
    endLoopBody,
    resolveLoopStart,
    openApprovalBody,
    checkApprovalBody,
    closeApprovalBody,
    openTaskBody,
    checkTaskBody,
    closeTaskBody,
    recordSkipsBody,
    recordWaveBody,
    finishRunBody,
  },
  stepRuntime,
};

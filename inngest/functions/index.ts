import { deliverAlertFn } from "./deliver-alert";
import { evaluateSchedulesFn } from "./evaluate-schedules";
import { expireProposals } from "./expire-proposals";
import { finalizeCancelledRun } from "./finalize-cancelled-run";
import { proposalDryRun } from "./proposal-dry-run";
import { proposalShadowRun } from "./proposal-shadow-run";
import { reapRuns } from "./reap-runs";
import { retention } from "./retention";
import { runWorkflow } from "./run-workflow";
import { sweepAlertsFn } from "./sweep-alerts";
import { systemPing } from "./system-ping";

/** Every function the app serves at /api/inngest. */
export const functions = [
  runWorkflow,
  finalizeCancelledRun,
  reapRuns,
  retention,
  systemPing,
  evaluateSchedulesFn,
  expireProposals,
  proposalDryRun,
  proposalShadowRun,
  deliverAlertFn,
  sweepAlertsFn,
];

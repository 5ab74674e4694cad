import { alertRouter } from "./routers/alert";
import { apiTokenRouter } from "./routers/api-token";
import { approvalRouter } from "./routers/approval";
import { taskRouter } from "./routers/task";
import { recordingRouter } from "./routers/recording";
import { auditRouter } from "./routers/audit";
import { runRouter } from "./routers/run";
import { triggerRouter } from "./routers/trigger";
import { scheduleRouter } from "./routers/schedule";
import { searchRouter } from "./routers/search";
import { authRouter } from "./routers/auth";
import { invitationRouter } from "./routers/invitation";
import { meRouter } from "./routers/me";
import { memberRouter } from "./routers/member";
import { workflowRouter } from "./routers/workflow";
import { proposalRouter } from "./routers/proposal";
import { proposalRulesRouter } from "./routers/proposal-rules";
import { secretRouter } from "./routers/secret";
import { sessionRouter } from "./routers/session";
import { quotaRouter } from "./routers/quota";
import { operationsRouter } from "./routers/operations";
import { settingsRouter } from "./routers/settings";
import { twoFactorRouter } from "./routers/two-factor";
import { workspaceRouter } from "./routers/workspace";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  auth: authRouter,
  me: meRouter,
  workspace: workspaceRouter,
  member: memberRouter,
  invitation: invitationRouter,
  apiToken: apiTokenRouter,
  workflow: workflowRouter,
  run: runRouter,
  approval: approvalRouter,
  task: taskRouter,
  recording: recordingRouter,
  trigger: triggerRouter,
  secret: secretRouter,
  settings: settingsRouter,
  quota: quotaRouter,
  schedule: scheduleRouter,
  proposal: proposalRouter,
  proposalRules: proposalRulesRouter,
  audit: auditRouter,
  search: searchRouter,
  session: sessionRouter,
  twoFactor: twoFactorRouter,
  alert: alertRouter,
  operations: operationsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

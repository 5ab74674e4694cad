import {
  TestLlmIntegrationInput,
  TestMcpServerInput,
  UpdateMcpServersInput,
  TestSmtpIntegrationInput,
  UpdateLlmIntegrationInput,
  UpdateSmtpIntegrationInput,
  UpdateAdmissionLimitsInput,
  UpdateWorkspacePoliciesInput,
} from "@/lib/schemas/workspace";
import { getWorkspaceSettings } from "../../services/settings/get-workspace-settings";
import { testLlmIntegration } from "../../services/settings/test-llm-integration";
import { testMcpServer } from "../../services/settings/test-mcp-server";
import { testSmtpIntegration } from "../../services/settings/test-smtp-integration";
import { updateMcpServers } from "../../services/settings/update-mcp-servers";
import { updateLlmIntegration } from "../../services/settings/update-llm-integration";
import { updateSmtpIntegration } from "../../services/settings/update-smtp-integration";
import { updateWorkspacePolicies } from "../../services/settings/update-workspace-policies";
import { updateAdmissionLimits } from "../../services/settings/update-admission-limits";
import { roleProcedure, router } from "../init";

/** Workspace policies and integrations: every member reads, admins change and test. */
export const settingsRouter = router({
  get: roleProcedure("viewer").query(({ ctx }) => getWorkspaceSettings({ ctx: ctx.svc })),
  updatePolicies: roleProcedure("admin")
    .input(UpdateWorkspacePoliciesInput)
    .mutation(({ ctx, input }) => updateWorkspacePolicies({ ctx: ctx.svc, input })),
  updateAdmissionLimits: roleProcedure("admin")
    .input(UpdateAdmissionLimitsInput)
    .mutation(({ ctx, input }) => updateAdmissionLimits({ ctx: ctx.svc, input })),
  updateLlm: roleProcedure("admin")
    .input(UpdateLlmIntegrationInput)
    .mutation(({ ctx, input }) => updateLlmIntegration({ ctx: ctx.svc, input })),
  updateSmtp: roleProcedure("admin")
    .input(UpdateSmtpIntegrationInput)
    .mutation(({ ctx, input }) => updateSmtpIntegration({ ctx: ctx.svc, input })),
  updateMcpServers: roleProcedure("admin")
    .input(UpdateMcpServersInput)
    .mutation(({ ctx, input }) => updateMcpServers({ ctx: ctx.svc, input })),
  /** Real requests through the steps' own clients; failures come back as `{ ok: false, message }`. */
  testLlm: roleProcedure("admin")
    .input(TestLlmIntegrationInput)
    .mutation(({ ctx, input }) => testLlmIntegration({ ctx: ctx.svc, input })),
  testSmtp: roleProcedure("admin")
    .input(TestSmtpIntegrationInput)
    .mutation(({ ctx, input }) => testSmtpIntegration({ ctx: ctx.svc, input })),
  testMcpServer: roleProcedure("admin")
    .input(TestMcpServerInput)
    .mutation(({ ctx, input }) => testMcpServer({ ctx: ctx.svc, input })),
});

import { z } from "zod";
import { parseIp } from "../net/ip";
import { allowedHostEntryProblem, isHostName } from "../net/host-allow-list";
import { SecretName } from "../workflow/primitives";
import { MCP_SERVER_NAME, StepType } from "../workflow/steps";
import { APPROVAL_TARGETS } from "../workflow/required-approvals";
import { Email } from "./auth";
import { StoredWorkspaceQuota } from "./quotas";
import { Role } from "./roles";
import { plainText } from "./text";

export const WorkspaceName = plainText(
  z.string().trim().min(1, "Enter a workspace name").max(80, "Name is too long"),
);

export const CreateWorkspaceInput = z.object({ name: WorkspaceName });
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;

export const RenameWorkspaceInput = z.object({ name: WorkspaceName });
export type RenameWorkspaceInput = z.infer<typeof RenameWorkspaceInput>;

export const SwitchWorkspaceInput = z.object({ workspaceId: z.string().min(1).max(64) });
export type SwitchWorkspaceInput = z.infer<typeof SwitchWorkspaceInput>;

export const InviteMemberInput = z.object({ email: Email, role: Role });
export type InviteMemberInput = z.infer<typeof InviteMemberInput>;

export const ChangeMemberRoleInput = z.object({ userId: z.string().min(1).max(64), role: Role });
export type ChangeMemberRoleInput = z.infer<typeof ChangeMemberRoleInput>;

export const RemoveMemberInput = z.object({ userId: z.string().min(1).max(64) });
export type RemoveMemberInput = z.infer<typeof RemoveMemberInput>;

export const InvitationIdInput = z.object({ invitationId: z.string().min(1).max(64) });
export type InvitationIdInput = z.infer<typeof InvitationIdInput>;

export const InvitationTokenInput = z.object({ token: z.string().min(10).max(200) });
export type InvitationTokenInput = z.infer<typeof InvitationTokenInput>;

// --- policies ------------------------------------------------------------------------------

/** A host name (`build.internal`, `*.corp.example`), an IP address or a CIDR range. */
export const AllowedPrivateHost = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, "Enter a host name, IP address or CIDR range")
  .max(253)
  .superRefine((entry, ctx) => {
    const problem = allowedHostEntryProblem(entry);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const SCRIPT_NETWORK_MODES = ["none", "allowed"] as const;

export const WorkspacePolicies = z.object({
  /** `script` steps run shell commands on the Sluice host: off unless an admin turns them on. */
  scriptStepsEnabled: z.boolean(),
  /**
   * Whether `script` steps reach the network: "none" (the default) runs them in a sandbox with no
   * network at all, "allowed" shares the host's network (no SSRF guard: anything the host reaches).
   */
  scriptNetwork: z.enum(SCRIPT_NETWORK_MODES).default("none"),
  /** Private/loopback hosts that http, llm, agent and notify steps may reach. */
  allowedPrivateHosts: z
    .array(AllowedPrivateHost)
    .max(100, "At most 100 entries")
    .refine((list) => new Set(list).size === list.length, { message: "Remove duplicate entries" }),
  /** Step types that publishing and proposal application refuse in this workspace. */
  forbiddenStepTypes: z
    .array(StepType)
    .refine((list) => new Set(list).size === list.length, { message: "Remove duplicate types" }),
  /**
   * Required approvals (RFC 001 §12): steps of these kinds (a step type, or `http_write` for an
   * http step whose method is not GET/HEAD/OPTIONS) must follow an approval on every path from
   * the start. Checked on publish, import, sync, inline runs and proposals.
   */
  requiredApprovals: z
    .array(z.enum(APPROVAL_TARGETS))
    .refine((list) => new Set(list).size === list.length, { message: "Remove duplicate entries" })
    .default([]),
  /** Separation of duties: whether a proposer may approve their own change proposal. */
  allowSelfApproval: z.boolean().default(false),
  /** How many recent finished runs a proposal's dry run replays. */
  proposalDryRunRuns: z
    .number()
    .int()
    .min(1, "Replay at least 1 run")
    .max(100, "At most 100 runs")
    .default(10),
  /**
   * Apply only proposals the engine verified (issue #29: every changed step exercised by a
   * replayed run, nothing unverified); an admin may override with a written reason, audited.
   */
  requireVerifiedToApply: z.boolean().default(false),
});
export type WorkspacePolicies = z.infer<typeof WorkspacePolicies>;

export const DEFAULT_WORKSPACE_POLICIES: WorkspacePolicies = {
  scriptStepsEnabled: false,
  scriptNetwork: "none",
  allowedPrivateHosts: [],
  forbiddenStepTypes: [],
  requiredApprovals: [],
  allowSelfApproval: false,
  proposalDryRunRuns: 10,
  requireVerifiedToApply: false,
};

export const UpdateWorkspacePoliciesInput = WorkspacePolicies;
export type UpdateWorkspacePoliciesInput = z.infer<typeof UpdateWorkspacePoliciesInput>;

/** Admission limits of a workspace; `null` falls back to the server's configured default. */
export const UpdateAdmissionLimitsInput = z.strictObject({
  maxActiveRunsPerUser: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .nullable()
    .describe("Active runs (running, waiting, cancelling) one person may have at once; 1–1000."),
  maxActiveRunsPerWorkspace: z
    .number()
    .int()
    .min(1)
    .max(10000)
    .nullable()
    .describe("Active runs the whole workspace may have at once; 1–10000."),
});
export type UpdateAdmissionLimitsInput = z.infer<typeof UpdateAdmissionLimitsInput>;

// --- integrations ----------------------------------------------------------------------------

const HttpBaseUrl = z
  .string()
  .trim()
  .min(1, "Enter the endpoint's base URL")
  .max(2048)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({
        code: "custom",
        message: "Enter an absolute URL, e.g. https://api.openai.com/v1",
      });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      ctx.addIssue({ code: "custom", message: "Use an http or https URL" });
    if (url.username || url.password)
      ctx.addIssue({
        code: "custom",
        message: "Put credentials in the API key secret, not the URL",
      });
    if (url.search || url.hash)
      ctx.addIssue({ code: "custom", message: "The base URL has no query string or fragment" });
  });

/** An OpenAI-compatible chat completions endpoint (OpenAI, Azure-compatible gateways, Ollama, vLLM, …). */
export const LlmIntegration = z.object({
  /** Up to the version segment: `https://api.openai.com/v1`; requests go to `<baseUrl>/chat/completions`. */
  baseUrl: HttpBaseUrl,
  /** Default model for llm and agent steps that name none. */
  model: z.string().trim().min(1, "Enter a model name").max(200),
  /** Name of the workspace secret holding the API key (sent as `Authorization: Bearer …`). */
  apiKeySecret: SecretName.optional(),
});
export type LlmIntegration = z.infer<typeof LlmIntegration>;

const SmtpHost = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, "Enter the SMTP server's host name")
  .max(253)
  .refine((h) => isHostName(h) || parseIp(h) !== null, {
    message: "Enter a host name or IP address",
  });

/** `alerts@example.com` or `Sluice <alerts@example.com>`. */
const FromAddress = z
  .string()
  .trim()
  .min(1, "Enter the sender address")
  .max(320)
  .refine(
    (v) =>
      /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v) ||
      /^[^<>@]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>$/.test(v),
    { message: 'Enter an address such as alerts@example.com or "Sluice <alerts@example.com>"' },
  );

export const SmtpIntegration = z
  .object({
    host: SmtpHost,
    port: z.number().int().min(1).max(65535),
    /** true: TLS from the first byte (port 465). false: plain, upgraded with STARTTLS when offered. */
    secure: z.boolean(),
    user: z.string().trim().max(320).optional(),
    /** Name of the workspace secret holding the SMTP password. */
    passwordSecret: SecretName.optional(),
    from: FromAddress,
  })
  .superRefine((smtp, ctx) => {
    if (smtp.passwordSecret && !smtp.user)
      ctx.addIssue({ code: "custom", path: ["user"], message: "A password needs a user name" });
  });
export type SmtpIntegration = z.infer<typeof SmtpIntegration>;

/** How `tool` steps name the server (`"server": "github"`). */
export const McpServerName = z.string().trim().regex(MCP_SERVER_NAME, {
  message: "Use lower-case letters, digits, - and _ (starting with a letter), e.g. github",
});

/** An MCP server (streamable HTTP) that `tool` steps call by name. */
export const McpServerIntegration = z.object({
  name: McpServerName,
  url: HttpBaseUrl,
  /** Name of the workspace secret sent as `Authorization: Bearer …`. */
  apiKeySecret: SecretName.optional(),
});
export type McpServerIntegration = z.infer<typeof McpServerIntegration>;

export const McpServerList = z
  .array(McpServerIntegration)
  .max(50, "At most 50 MCP servers")
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((server, i) => {
      if (seen.has(server.name))
        ctx.addIssue({
          code: "custom",
          path: [i, "name"],
          message: `Another server is already named ${server.name}`,
        });
      seen.add(server.name);
    });
  });

export const UpdateMcpServersInput = z.object({ mcpServers: McpServerList });
export type UpdateMcpServersInput = z.infer<typeof UpdateMcpServersInput>;

export const TestMcpServerInput = McpServerIntegration;
export type TestMcpServerInput = z.infer<typeof TestMcpServerInput>;

export const UpdateLlmIntegrationInput = z.object({ llm: LlmIntegration.nullable() });
export type UpdateLlmIntegrationInput = z.infer<typeof UpdateLlmIntegrationInput>;

export const UpdateSmtpIntegrationInput = z.object({ smtp: SmtpIntegration.nullable() });
export type UpdateSmtpIntegrationInput = z.infer<typeof UpdateSmtpIntegrationInput>;

export const TestLlmIntegrationInput = LlmIntegration;
export type TestLlmIntegrationInput = z.infer<typeof TestLlmIntegrationInput>;

export const TestSmtpIntegrationInput = SmtpIntegration;
export type TestSmtpIntegrationInput = z.infer<typeof TestSmtpIntegrationInput>;

/** The answer of a "Test connection" button: never throws for a failed connection. */
export interface IntegrationTestResult {
  ok: boolean;
  /** What succeeded ("Model gpt-4o-mini answered in 420 ms") or the exact error. */
  message: string;
  durationMs: number;
}

// --- stored settings -------------------------------------------------------------------------

/**
 * Per-workspace limits, policies and integrations (stored in workspaces.settings). Fields are
 * optional in storage; readers apply DEFAULT_WORKSPACE_POLICIES. Secrets are referenced by name.
 */
export const WorkspaceSettings = z.object({
  maxActiveRunsPerUser: z.number().int().min(1).max(1000).optional(),
  maxActiveRunsPerWorkspace: z.number().int().min(1).max(10000).optional(),
  allowSelfApproval: WorkspacePolicies.shape.allowSelfApproval.optional(),
  proposalDryRunRuns: WorkspacePolicies.shape.proposalDryRunRuns.optional(),
  requireVerifiedToApply: z.boolean().optional(),
  scriptStepsEnabled: WorkspacePolicies.shape.scriptStepsEnabled.optional(),
  scriptNetwork: z.enum(SCRIPT_NETWORK_MODES).optional(),
  allowedPrivateHosts: WorkspacePolicies.shape.allowedPrivateHosts.optional(),
  forbiddenStepTypes: WorkspacePolicies.shape.forbiddenStepTypes.optional(),
  requiredApprovals: WorkspacePolicies.shape.requiredApprovals.optional(),
  llm: LlmIntegration.optional(),
  smtp: SmtpIntegration.optional(),
  mcpServers: McpServerList.optional(),
  /** The plan and per-limit overrides (lib/quotas/plans.ts); absent = the server's default plan. */
  quota: StoredWorkspaceQuota.optional(),
  /** Owners' choice: members who sign in with a password must use two-factor (absent = no). */
  requireTwoFactor: z.boolean().optional(),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

/**
 * The contract between the run engine and step-type handlers. A step type = one catalog entry
 * (lib/workflow/catalog.ts, client-safe) + one handler here (server-side). The engine resolves
 * templates (including `{{ secrets.X }}`) before calling a handler, records the attempt, applies
 * retries with backoff from the step's `retry`, and redacts every secret value it resolved from
 * the result, the error and the logs.
 */
import type { Logger } from "@/lib/log";
import type { TemplateContext } from "@/lib/workflow/template-resolve";
import type { FailureClass } from "@/lib/workflow/status";
import type { LlmBudget } from "@/server/services/quotas/enforce-quotas";
import type { ScriptSandboxConfig } from "@/server/sandbox/bwrap";

export interface WorkspacePolicy {
  /** `script` steps run only when a workspace admin turned them on. */
  scriptStepsEnabled: boolean;
  /** Whether `script` steps reach the network (absent: "none", the sandbox has no network). */
  scriptNetwork?: "none" | "allowed";
  /** Hosts (names, IPs or CIDRs) that outbound HTTP may reach although they are private/loopback. */
  allowedPrivateHosts: string[];
  forbiddenStepTypes: string[];
}

export interface LlmEndpoint {
  baseUrl: string;
  model: string;
  /** Resolved API key (from the workspace secret named in the integration settings). */
  apiKey?: string;
}

export interface ActionContext<Config = unknown> {
  workspaceId: string;
  /** Null for an inline run (no saved workflow). */
  workflowId: string | null;
  runId: string;
  rootRunId: string;
  stepId: string;
  /** The step instance path (`each[2].fetch` inside loops). */
  stepPath: string;
  /** 1-based attempt of this step in this run. */
  attempt: number;
  /** Stable across reruns of the same root run: (root run, step path, attempt). */
  idempotencyKey: string;
  /** The step's config with templates resolved. */
  config: Config;
  /** Aborted on cancel or when the step/run deadline passes. */
  signal: AbortSignal;
  /** Epoch ms by which the step must finish. */
  deadline: number;
  policy: WorkspacePolicy;
  log: Logger;
  /** How `script` steps are isolated (the operator's SLUICE_SCRIPT_SANDBOX; absent: bwrap). */
  scriptSandbox?: ScriptSandboxConfig;
  /** Per-run scratch directory (created on demand, removed when the run ends). */
  scratchDir(): Promise<string>;
  /** Secret values known to the run, for handlers that must redact them themselves (e.g. script output). */
  secretValues: readonly string[];
  /**
   * Secrets a handler needs by name rather than through a template: the values of the `script`
   * step's `secrets` map (env var → secret name). The engine resolves them with `resolveSecrets`
   * (server/services/secrets/resolve-secrets.ts) and adds them to `secretValues` too.
   */
  secrets?: Readonly<Record<string, string>>;
  /** The run's repository context (script steps of a workflow that declares one). */
  repository?: RepositoryCheckout;
  llm?: LlmEndpoint;
  /** The workspace's LLM token quotas for this attempt (llm and agent steps call through it). */
  llmBudget?: LlmBudget;
  smtp?: SmtpSettings;
  /** The MCP server a `tool` step names, with its auth header resolved (absent: not configured). */
  mcpServer?: McpServerEndpoint;
  /** Remembers the tool list a server returned, for publish-time checks (best effort). */
  recordMcpTools?(tools: ReadonlyArray<McpToolInfo>): Promise<void>;
  /** The run context the config's templates were resolved against (condition refs read it). */
  templateContext?: TemplateContext;
  /** Starts another workflow of the workspace and waits for its output (agent tools). */
  invokeWorkflow?(ref: string, input: Record<string, unknown>): Promise<unknown>;
}

export interface McpServerEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/** The commit a run pinned, and how to materialize it (SPEC §3). */
export interface RepositoryCheckout {
  url: string;
  ref: string;
  sha: string;
  /** Clones the commit to `dest` (which must not exist); read-only unless `writable`. */
  checkout(dest: string, opts: { writable: boolean }): Promise<void>;
  /** Removes a checkout made by `checkout`, read-only or not. */
  remove(dest: string): Promise<void>;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
}

export interface ActionResult {
  /** The primary result: becomes `output.data`. */
  data: unknown;
  meta?: Record<string, unknown>;
  /** The chosen output port, for types with several (default `success`). */
  port?: string;
  /**
   * Workflow events to publish. The engine writes them to the outbox in the same transaction that
   * records the step as completed, so an event exists exactly when its step succeeded.
   */
  emit?: { name: string; data: unknown }[];
}

export type ActionHandler<Config = unknown> = (ctx: ActionContext<Config>) => Promise<ActionResult>;

/**
 * A classified step failure. `operational` failures are retried per the step's `retry`
 * (optionally not before `retryAfterMs`); `user` and `internal` never are.
 */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly failureClass: FailureClass,
    readonly details: Record<string, unknown> = {},
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "StepFailure";
  }
}

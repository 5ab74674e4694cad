import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StepType } from "@/lib/workflow";
import { checkoutRepository, removeCheckout } from "@/server/repository/git";
import { GIT_TIMEOUT_MS } from "@/server/repository/git-command";
import { recordMcpTools } from "@/server/services/settings/record-mcp-tools";
import { loadWorkspacePolicy } from "@/server/services/settings/load-workspace-policy";
import { llmBudget } from "@/server/services/quotas/enforce-quotas";
import type { ActionContext } from "@/server/services/step-execution/actions/types";
import type { AttemptArgs } from "./action-attempt";
import type { PreparedAttempt } from "./attempt-prepare";
import { invokeChildWorkflow } from "./invoke-child";
import type { StepRuntime } from "./runtime";

/** The context of an instant step (no I/O of its own: no policy, secrets or scratch directory). */
export function instantContext(
  args: AttemptArgs,
  config: unknown,
  log: ActionContext["log"],
): ActionContext {
  return {
    workspaceId: args.key.workspaceId,
    workflowId: args.workflowId,
    runId: args.key.runId,
    rootRunId: args.rootRunId,
    stepId: args.key.stepId,
    stepPath: args.key.path,
    attempt: args.key.attempt,
    idempotencyKey: `${args.rootRunId}:${args.key.path}:${args.key.attempt}`,
    config,
    signal: new AbortController().signal,
    deadline: args.deadline,
    policy: { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: [] },
    log,
    scratchDir: () => Promise.reject(new Error("instant steps have no scratch directory")),
    secretValues: [],
    templateContext: args.context,
  };
}

/**
 * The context an action handler runs with: the attempt's identity, its resolved config, the
 * signal that aborts it (deadline, cancel) and what the step type needs (workspace policy,
 * scratch directory, secrets, repository checkout, LLM and budget, SMTP, MCP server, child runs).
 */
export async function actionContext(input: {
  rt: StepRuntime;
  args: AttemptArgs;
  type: StepType;
  config: unknown;
  prepared: PreparedAttempt;
  signal: AbortSignal;
  deadline: number;
  now: () => Date;
  log: ActionContext["log"];
}): Promise<ActionContext> {
  const { rt, args, type, config, prepared, signal, deadline, now, log } = input;
  const { db } = rt;
  const { secretValues, scriptSecretNames, integrations, mcp, integrationSecrets, repository } =
    prepared;
  return {
    workspaceId: args.key.workspaceId,
    workflowId: args.workflowId,
    runId: args.key.runId,
    rootRunId: args.rootRunId,
    stepId: args.key.stepId,
    stepPath: args.key.path,
    attempt: args.key.attempt,
    idempotencyKey: `${args.rootRunId}:${args.key.path}:${args.key.attempt}`,
    config,
    signal,
    deadline,
    policy: await loadWorkspacePolicy(db, args.key.workspaceId),
    log,
    scriptSandbox: rt.config.scriptSandbox,
    scratchDir: async () => {
      const dir = path.join(os.tmpdir(), "sluice-runs", args.key.runId);
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      return dir;
    },
    secretValues: [...Object.values(secretValues), ...integrationSecrets],
    // Keyed by SECRET name (the handler maps env var → secret name itself); keying by the env
    // var name only worked when both names were equal.
    secrets:
      type === "script"
        ? Object.fromEntries(scriptSecretNames.map((name) => [name, secretValues[name]!]))
        : undefined,
    templateContext: args.context,
    ...(repository
      ? {
          repository: {
            ...repository.pin,
            checkout: (dest, opts) =>
              checkoutRepository(
                repository.where,
                // The step's deadline still applies through the signal.
                { ...repository.access, signal, timeoutMs: GIT_TIMEOUT_MS },
                repository.pin,
                dest,
                opts,
              ),
            remove: removeCheckout,
          },
        }
      : {}),
    ...(integrations?.llm
      ? {
          llm: integrations.llm,
          llmBudget: await llmBudget(
            db,
            rt.config,
            // Inline runs share one monthly LLM budget (they have no workflow of their own).
            { workspaceId: args.key.workspaceId, workflowId: args.workflowId ?? "inline" },
            now,
          ),
        }
      : {}),
    ...(integrations?.smtp ? { smtp: integrations.smtp } : {}),
    ...(mcp
      ? {
          mcpServer: mcp.server,
          recordMcpTools: (tools) =>
            recordMcpTools(db, args.key.workspaceId, mcp.server, tools, now()),
        }
      : {}),
    invokeWorkflow: (ref, input) =>
      invokeChildWorkflow({
        parent: args.key,
        rootRunId: args.rootRunId,
        ref,
        input,
        deadline,
        signal,
      }),
  };
}

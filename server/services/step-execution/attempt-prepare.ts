import "server-only";
import { createRedactor, type Redactor } from "@/lib/redact";
import { collectReferences, type StepType } from "@/lib/workflow";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import {
  loadRunRepository,
  repositoryAccessFor,
  repositoryCacheRoot,
} from "@/server/services/run-state/pin-run-repository";
import { MissingSecretsError, resolveSecrets } from "@/server/services/secrets/resolve-secrets";
import { loadWorkspaceIntegrations } from "@/server/services/settings/load-workspace-integrations";
import { loadMcpServer } from "@/server/services/settings/load-mcp-server";
import { StepFailure } from "@/server/services/step-execution/actions/types";
import type { AttemptArgs } from "./action-attempt";
import { stepRuntime, type StepRuntime } from "./runtime";

/** What an action attempt needs before its config is resolved: secrets, integrations, repository. */
export interface PreparedAttempt {
  /** Secret name → value: the ones templates (and script's env → secret map) name. */
  secretValues: Record<string, string>;
  /** The secret names a script's `secrets` map names (empty for other types). */
  scriptSecretNames: string[];
  integrations: Awaited<ReturnType<typeof loadWorkspaceIntegrations>> | undefined;
  mcp: Awaited<ReturnType<typeof loadMcpServer>>;
  /** Secret values of the integrations and the MCP server, redacted like the named secrets. */
  integrationSecrets: string[];
  repository: RepositoryAccess | undefined;
  /** Redacts every value above from what is stored and returned. */
  redactor: Redactor;
}

type RepositoryAccess = Exclude<
  Awaited<ReturnType<typeof runRepositoryAccess>>,
  StepFailure | undefined
>;

/**
 * Resolves, just for this attempt, the secrets named in templates (and script's env → secret
 * map), the integrations llm/agent/email-notify steps use, a tool step's MCP server and a script
 * step's repository. A StepFailure when one of them cannot be used (a missing secret, …).
 */
export async function prepareAttempt(
  rt: StepRuntime,
  args: AttemptArgs,
  type: StepType,
): Promise<PreparedAttempt | StepFailure> {
  const { db, keys } = rt;
  const refs = collectReferences(args.config);
  const scriptSecretNames =
    type === "script"
      ? Object.values(
          ((args.config as { secrets?: Record<string, string> })?.secrets ?? {}) as Record<
            string,
            string
          >,
        )
      : [];
  let secretValues: Record<string, string>;
  try {
    secretValues = await resolveSecrets(db, keys, args.key.workspaceId, [
      ...refs.secrets,
      ...scriptSecretNames,
    ]);
  } catch (e) {
    if (e instanceof MissingSecretsError)
      return new StepFailure(e.message, "user", { missing: e.names });
    throw e;
  }
  const integrations =
    ["llm", "agent"].includes(type) ||
    (type === "notify" && (args.config as { channel?: string })?.channel === "email")
      ? await loadWorkspaceIntegrations(
          db,
          keys,
          args.key.workspaceId,
          type === "notify" ? ["smtp"] : ["llm"],
        ).catch((e: unknown) => (e instanceof MissingSecretsError ? e : Promise.reject(e)))
      : undefined;
  if (integrations instanceof MissingSecretsError)
    return new StepFailure(integrations.message, "user");
  // `tool` steps name a workspace MCP server; a missing one is reported by the handler.
  const mcp =
    type === "tool"
      ? await loadMcpServer(
          db,
          keys,
          args.key.workspaceId,
          String((args.config as { server?: unknown })?.server ?? ""),
        ).catch((e: unknown) => (e instanceof MissingSecretsError ? e : Promise.reject(e)))
      : null;
  if (mcp instanceof MissingSecretsError) return new StepFailure(mcp.message, "user");
  const integrationSecrets = [...(integrations?.secretValues ?? []), ...(mcp?.secretValues ?? [])];
  const repository = type === "script" ? await runRepositoryAccess(args.key) : undefined;
  if (repository instanceof StepFailure) return repository;
  if (repository?.access.credentials)
    secretValues = { ...secretValues, [repository.secretName!]: repository.access.credentials };
  const redactor = createRedactor([
    ...Object.entries(secretValues).map(([name, value]) => ({ name, value })),
    ...integrationSecrets.map((value) => ({ value })),
  ]);
  return {
    secretValues,
    scriptSecretNames,
    integrations,
    mcp,
    integrationSecrets,
    repository,
    redactor,
  };
}

/**
 * The run's pinned repository and how git reaches it, for script steps; undefined when the run
 * has none, a StepFailure when it cannot be used (credentials secret gone, commit not pinned).
 */
async function runRepositoryAccess(key: AttemptKey) {
  const rt = await stepRuntime();
  const run = await loadRunRepository(rt.db, key);
  if (!run?.repositoryUrl || !run.repositoryRef) return undefined;
  if (!run.repositorySha)
    return new StepFailure("The run's repository commit was never pinned", "internal");
  try {
    const access = await repositoryAccessFor(rt.db, rt.keys, {
      ...run,
      repositoryUrl: run.repositoryUrl,
    });
    return {
      access,
      secretName: run.repositoryCredentialsSecret,
      where: { cacheRoot: repositoryCacheRoot(rt.config), workspaceId: run.workspaceId },
      pin: { url: run.repositoryUrl, ref: run.repositoryRef, sha: run.repositorySha },
    };
  } catch (e) {
    if (e instanceof MissingSecretsError)
      return new StepFailure(`The repository's credentialsSecret is missing: ${e.message}`, "user");
    throw e;
  }
}

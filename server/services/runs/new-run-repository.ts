import "server-only";
import type { TriggerType } from "@/lib/schemas/runs";
import type { RepositoryOverride, WorkflowDefinition } from "@/lib/workflow";
import { ValidationError } from "../../errors";
import type { RunRow } from "./load-run";

export type RunRepositoryColumns = Pick<
  RunRow,
  "repositoryUrl" | "repositoryRef" | "repositorySha" | "repositoryCredentialsSecret"
>;

/** Manual run starts that may override the repository (a token's run is a manual API call). */
const OVERRIDE_TRIGGERS: readonly TriggerType[] = ["manual", "api"];

/**
 * The repository columns of a new run: the definition's repository, with a manual run's
 * override applied. Credentials stay with the definition's URL: a run pointed at another URL
 * gets none, so a token is never sent to a host its workflow did not name.
 */
export function runRepository(
  definition: WorkflowDefinition,
  args: { trigger: { type: TriggerType }; repositoryOverride?: RepositoryOverride },
): RunRepositoryColumns {
  const declared = definition.repository;
  const override = args.repositoryOverride;
  const mayOverride =
    OVERRIDE_TRIGGERS.includes(args.trigger.type) ||
    (args.trigger.type === "webhook" && override?.url === undefined);
  if (override && !mayOverride)
    throw new ValidationError(
      `Only manual runs may override the repository (webhooks: its ref only); this run is started by ${args.trigger.type}`,
      [
        {
          path: ["repository"],
          message: "Only manual runs may override the repository (webhooks: its ref only).",
        },
      ],
    );
  if (override && !declared)
    throw new ValidationError("This workflow declares no repository to override", [
      { path: ["repository"], message: "The workflow declares no repository." },
    ]);
  if (!declared)
    return {
      repositoryUrl: null,
      repositoryRef: null,
      repositorySha: null,
      repositoryCredentialsSecret: null,
    };
  const url = override?.url ?? declared.url;
  return {
    repositoryUrl: url,
    repositoryRef: override?.ref ?? declared.ref,
    repositorySha: null,
    repositoryCredentialsSecret: url === declared.url ? (declared.credentialsSecret ?? null) : null,
  };
}

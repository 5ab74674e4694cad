import "server-only";
import type { Queryable } from "@/db/client";
import { NotFoundError, PreconditionFailedError } from "../../errors";
import { currentVersion, type VersionRow, type WorkflowRow } from "../workflows/load-workflow";
import { contentOf } from "../workflows/version-content";
import { ProposalError } from "./errors";

export interface PublishedState {
  version: VersionRow;
  definition: Record<string, unknown>;
}

/** The workflow's current published version and its content; proposals always start from it. */
export async function publishedState(db: Queryable, wf: WorkflowRow): Promise<PublishedState> {
  const version = await currentVersion(db, wf);
  if (!version)
    throw new PreconditionFailedError(
      `Workflow "${wf.name}" has no published version to change yet`,
    );
  return { version, definition: await contentOf(db, wf.workspaceId, version.hash) };
}

export function allowsSelfModification(definition: Record<string, unknown>): boolean {
  const c = definition.constraints as { allowSelfModification?: unknown } | undefined;
  return c?.allowSelfModification === true;
}

/** Proposals exist only for workflows whose published version opts in (SPEC §8). */
export function requireSelfModification(wf: WorkflowRow, state: PublishedState): void {
  if (!allowsSelfModification(state.definition))
    throw new ProposalError(
      "SELF_MODIFICATION_DISABLED",
      `Workflow "${wf.name}" v${state.version.version} does not accept change proposals: constraints.allowSelfModification is off (an admin can turn it on)`,
      { workflowId: wf.id, version: state.version.version },
    );
}

/** STALE_BASE with the three definitions the UI needs for a three-way view. */
export async function staleBase(
  db: Queryable,
  wf: WorkflowRow,
  args: { baseHash: string; current: PublishedState; proposed?: unknown },
): Promise<ProposalError> {
  let base: Record<string, unknown> | null = null;
  try {
    base = await contentOf(db, wf.workspaceId, args.baseHash);
  } catch (e) {
    // A hash this workspace never stored: there is nothing to show on that side.
    if (!(e instanceof NotFoundError)) throw e;
  }
  return new ProposalError(
    "STALE_BASE",
    `The change was written against ${args.baseHash.slice(0, 19)}…, but workflow "${wf.name}" is now at v${args.current.version.version} (${args.current.version.hash.slice(0, 19)}…); rebase it on the current version`,
    {
      baseHash: args.baseHash,
      currentHash: args.current.version.hash,
      currentVersion: args.current.version.version,
      base,
      current: args.current.definition,
      proposed: args.proposed ?? null,
    },
  );
}

import "server-only";
import type { Queryable } from "@/db/client";
import type { WorkspacePolicies } from "@/lib/schemas/workspace";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

/**
 * Internal, for the run engine (no authorization: it acts for a run of this workspace). The
 * policy handed to step handlers as `ctx.policy`, defaults applied.
 */
export async function loadWorkspacePolicy(
  db: Queryable,
  workspaceId: string,
): Promise<WorkspacePolicies> {
  return parseWorkspaceSettings(await readRawSettings(db, workspaceId)).policies;
}

import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs } from "@/db/schema";
import { canonicalStringify, resolveRunInput } from "@/lib/workflow";
import { storedRunLimits } from "@/lib/workflow/run-limits";
import { IdempotencyKeyReusedError } from "../../errors";
import { definitionByHash } from "../workflows/version-content";
import type { CreateRunArgs, CreateRunResult } from "./create-run";
import type { RunRow } from "./load-run";

/** The run a repeated idempotency key belongs to, if the request is the same one. */
export async function replay(
  tx: Queryable,
  args: CreateRunArgs,
  existing: RunRow,
): Promise<CreateRunResult> {
  if (args.strictIdempotency && !(await sameRequest(tx, args, existing)))
    throw new IdempotencyKeyReusedError(args.idempotencyKey!, existing.id);
  return { run: existing, deduplicated: true, reason: "idempotency_key" };
}

/**
 * Same request = same version (when one was named) and the same input once the definition's
 * defaults are applied, compared as canonical JSON (key order does not matter).
 */
async function sameRequest(tx: Queryable, args: CreateRunArgs, existing: RunRow) {
  if (args.versionId && args.versionId !== existing.versionId) return false;
  if (args.inlineHash && args.inlineHash !== existing.hash) return false;
  if (
    canonicalStringify(storedRunLimits(args.limits)) !== canonicalStringify(existing.limits ?? null)
  )
    return false;
  const definition = await definitionByHash(tx, args.workspaceId, existing.hash);
  const input = resolveRunInput(definition.inputs, args.input);
  return input.ok && canonicalStringify(input.value) === canonicalStringify(existing.input);
}

export async function findByKey(
  tx: Queryable,
  workspaceId: string,
  workflowId: string | null,
  key: string,
): Promise<RunRow | undefined> {
  const [row] = await tx
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        workflowId === null ? isNull(runs.workflowId) : eq(runs.workflowId, workflowId),
        eq(runs.idempotencyKey, key),
      ),
    )
    .limit(1);
  return row;
}

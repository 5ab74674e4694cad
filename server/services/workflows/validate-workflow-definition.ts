import "server-only";
import { z } from "zod";
import { hashNormalizedDefinition, validateDefinition } from "@/lib/workflow";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { workspaceValidateOptions } from "./definition-policy";

const Input = z.object({ definition: z.unknown() });

/**
 * Validates a definition with the workspace policy, storing nothing: every issue (errors and
 * warnings), and when it is valid the hash a version of it would carry — the `baseHash` an agent
 * compares with a workflow's current version before proposing.
 */
export async function validateWorkflowDefinition({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "viewer");
  const parsed = Input.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Validate");
  const result = validateDefinition(
    parsed.data.definition,
    await workspaceValidateOptions(ctx.db, ws.id),
  );
  return {
    ok: result.ok,
    hash: result.ok && result.definition ? hashNormalizedDefinition(result.definition) : null,
    issues: result.issues,
  };
}

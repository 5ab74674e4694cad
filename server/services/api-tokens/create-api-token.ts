import "server-only";
import { randomBytes } from "node:crypto";
import { apiTokens } from "@/db/schema";
import { newId } from "@/lib/ids";
import { API_TOKEN_PREFIX, CreateApiTokenInput } from "@/lib/schemas/api-tokens";
import { hasRole } from "@/lib/schemas/roles";
import { sha256Hex } from "../../keys";
import { ForbiddenError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";

/**
 * Creates a personal API token for the acting member. Any member may, capped at their own role
 * (a viewer cannot mint an editor token; authenticateApiToken also re-caps at use time, so a later
 * demotion lowers the token too). The token is returned once; only its sha256 is stored (tokens
 * carry 256 random bits, so a fast hash is enough — there is nothing to brute-force).
 */
export async function createApiToken({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  if (ctx.actor.type === "token")
    throw new ForbiddenError("API tokens cannot create other API tokens");
  const parsed = CreateApiTokenInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "API token");
  const { name, role, expiresInDays } = parsed.data;
  if (!hasRole(ws.role, role))
    throw new ForbiddenError(`A token cannot have a role (${role}) above yours (${ws.role})`);
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const id = newId("tok");
  const expiresAt = expiresInDays
    ? new Date(ctx.now().getTime() + expiresInDays * 86_400_000)
    : null;
  const row = {
    id,
    workspaceId: ws.id,
    name,
    role,
    tokenHash: sha256Hex(token),
    prefix: token.slice(0, API_TOKEN_PREFIX.length + 6),
    createdBy: requireUserId(ctx),
    createdAt: ctx.now(),
    expiresAt,
  };
  await ctx.db.transaction(async (tx) => {
    await tx.insert(apiTokens).values(row);
    await recordAudit(tx, ctx, {
      action: "api_token.created",
      targetType: "api_token",
      targetId: id,
      data: { name, role },
    });
  });
  return { id, name, role, prefix: row.prefix, expiresAt, createdAt: row.createdAt, token };
}

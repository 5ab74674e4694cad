import "server-only";
import { asc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { secrets, users } from "@/db/schema";
import { requireRole, type ServiceContext } from "../context";
import {
  integrationsUsingSecret,
  parseWorkspaceSettings,
  readRawSettings,
} from "../settings/read-settings";

/**
 * Secret names with who created and last changed them — never values. Editors and up: they
 * write `{{ secrets.NAME }}` templates and need the names; viewers and approvers do not.
 */
export async function listSecrets({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "editor");
  const creator = alias(users, "creator");
  const updater = alias(users, "updater");
  const rows = await ctx.db
    .select({
      name: secrets.name,
      createdAt: secrets.createdAt,
      updatedAt: secrets.updatedAt,
      createdByName: creator.name,
      updatedByName: updater.name,
    })
    .from(secrets)
    .leftJoin(creator, eq(creator.id, secrets.createdBy))
    .leftJoin(updater, eq(updater.id, secrets.updatedBy))
    .where(eq(secrets.workspaceId, ws.id))
    .orderBy(asc(secrets.name));
  const settings = parseWorkspaceSettings(await readRawSettings(ctx.db, ws.id));
  return rows.map((r) => ({ ...r, usedBy: integrationsUsingSecret(settings, r.name) }));
}

import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { secrets } from "@/db/schema";
import { hasRole } from "@/lib/schemas/roles";
import { requireRole, type ServiceContext } from "../context";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";
import { admissionView } from "./update-admission-limits";

/**
 * Policies and integrations of the current workspace, for every member: nothing here is secret
 * (integrations name their secrets, never hold them). `missingSecrets` lists referenced secret
 * names that do not exist, so the UI can warn before a run fails on them.
 */
export async function getWorkspaceSettings({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const raw = await readRawSettings(ctx.db, ws.id);
  const settings = parseWorkspaceSettings(raw);
  const referenced = [
    settings.llm?.apiKeySecret,
    settings.smtp?.passwordSecret,
    ...settings.mcpServers.map((s) => s.apiKeySecret),
  ].filter((n): n is string => typeof n === "string");
  const existing = referenced.length
    ? await ctx.db
        .select({ name: secrets.name })
        .from(secrets)
        .where(and(eq(secrets.workspaceId, ws.id), inArray(secrets.name, referenced)))
    : [];
  const found = new Set(existing.map((r) => r.name));
  return {
    policies: settings.policies,
    llm: settings.llm,
    smtp: settings.smtp,
    mcpServers: settings.mcpServers,
    missingSecrets: [...new Set(referenced.filter((n) => !found.has(n)))],
    admission: admissionView(
      {
        maxActiveRunsPerUser: raw.maxActiveRunsPerUser,
        maxActiveRunsPerWorkspace: raw.maxActiveRunsPerWorkspace,
      },
      ctx.config,
    ),
    canEdit: hasRole(ws.role, "admin"),
  };
}

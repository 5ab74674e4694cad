import "server-only";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkspaceAlerts } from "./alert-settings";

/** The workspace's alert defaults (channels, window, gate age, reject threshold); any member. */
export async function getWorkspaceAlerts({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  return loadWorkspaceAlerts(ctx.db, ws.id);
}

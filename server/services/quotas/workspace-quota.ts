import "server-only";
import type { Queryable } from "@/db/client";
import {
  DEFAULT_PLAN,
  effectiveLimits,
  type PlanId,
  type QuotaKey,
  type QuotaLimits,
  type QuotaOverrides,
} from "@/lib/quotas/plans";
import { StoredWorkspaceQuota } from "@/lib/schemas/quotas";
import type { ServiceConfig } from "../context";
import { readRawSettings } from "../settings/read-settings";

export interface WorkspaceQuota {
  plan: PlanId;
  /** `workspace`: an admin chose the plan; `default`: SLUICE_DEFAULT_PLAN applies. */
  planSource: "workspace" | "default";
  overrides: QuotaOverrides;
  /** The plan's preset with the overrides on top: what enforcement uses. */
  limits: QuotaLimits;
}

/** The stored quota settings (a malformed value falls back to the server default plan). */
export function parseStoredQuota(raw: unknown): StoredWorkspaceQuota {
  const r = StoredWorkspaceQuota.safeParse(raw ?? {});
  return r.success ? r.data : {};
}

/** The plan, overrides and effective limits of a workspace. Internal: no authorization. */
export async function loadWorkspaceQuota(
  db: Queryable,
  workspaceId: string,
  config: Pick<ServiceConfig, "defaultPlan">,
): Promise<WorkspaceQuota> {
  const raw = await readRawSettings(db, workspaceId);
  return quotaFromSettings(raw.quota, config);
}

export function quotaFromSettings(
  stored: unknown,
  config: Pick<ServiceConfig, "defaultPlan">,
): WorkspaceQuota {
  const q = parseStoredQuota(stored);
  const plan = q.plan ?? config.defaultPlan ?? DEFAULT_PLAN;
  const overrides = q.overrides ?? {};
  return {
    plan,
    planSource: q.plan ? "workspace" : "default",
    overrides,
    limits: effectiveLimits(plan, overrides),
  };
}

/** The plan a limit comes from, for messages: none when an admin's override set it. */
export function planBehind(q: WorkspaceQuota, key: QuotaKey): PlanId | undefined {
  return key in q.overrides ? undefined : q.plan;
}

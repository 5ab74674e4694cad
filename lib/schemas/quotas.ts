import { z } from "zod";
import { PLAN_IDS, QUOTA_INFO, QUOTA_KEYS, type QuotaKey } from "../quotas/plans";

export const PlanId = z.enum(PLAN_IDS);
export type PlanId = z.infer<typeof PlanId>;

const limitValue = (key: QuotaKey) =>
  z
    .number()
    .int("Enter a whole number")
    .min(1, "Enter at least 1, or leave it unlimited")
    .max(QUOTA_INFO[key].max, `At most ${QUOTA_INFO[key].max}`)
    .nullable()
    .describe(`${QUOTA_INFO[key].label} (${QUOTA_INFO[key].unit}); null = unlimited`);

/** Per-key overrides over the plan: a number, null (unlimited), or absent (the plan's value). */
export const QuotaOverrides = z.strictObject(
  Object.fromEntries(QUOTA_KEYS.map((k) => [k, limitValue(k).optional()])) as Record<
    QuotaKey,
    z.ZodOptional<z.ZodNullable<z.ZodNumber>>
  >,
);
export type QuotaOverrides = z.infer<typeof QuotaOverrides>;

/** What workspaces.settings.quota holds. */
export const StoredWorkspaceQuota = z.object({
  plan: PlanId.optional(),
  overrides: QuotaOverrides.optional(),
});
export type StoredWorkspaceQuota = z.infer<typeof StoredWorkspaceQuota>;

/** Admin: the workspace's plan (`null` = the server default, SLUICE_DEFAULT_PLAN) and overrides. */
export const UpdateWorkspaceQuotaInput = z.strictObject({
  plan: PlanId.nullable(),
  overrides: QuotaOverrides.default({}),
});
export type UpdateWorkspaceQuotaInput = z.infer<typeof UpdateWorkspaceQuotaInput>;

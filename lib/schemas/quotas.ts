import { z } from "zod";
import { PLAN_IDS, QUOTA_INFO, QUOTA_KEYS, type QuotaKey } from "../quotas/plans";

export const PlanId = z.enum(PLAN_IDS);
export type PlanId = z.infer<typeof PlanId>;

const limitNumber = (key: QuotaKey) =>
  z
    .number()
    .int("Enter a whole number")
    .min(1, "Enter at least 1, or leave it unlimited")
    .max(QUOTA_INFO[key].max, `At most ${QUOTA_INFO[key].max}`);

const limitValue = (key: QuotaKey) =>
  limitNumber(key)
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

/**
 * The Settings form: a plan ("default" = the server's) and, per limit, a custom number or
 * "unlimited"; neither = the plan's value. Its output is the procedure's input.
 */
export const QuotaFormValues = z
  .object({
    plan: z.enum(["default", ...PLAN_IDS]),
    limits: z.object(
      Object.fromEntries(
        QUOTA_KEYS.map((k) => [
          k,
          z.object({ value: limitNumber(k).optional(), unlimited: z.boolean() }),
        ]),
      ) as Record<
        QuotaKey,
        z.ZodObject<{ value: z.ZodOptional<z.ZodNumber>; unlimited: z.ZodBoolean }>
      >,
    ),
  })
  .transform((v): UpdateWorkspaceQuotaInput => ({
    plan: v.plan === "default" ? null : v.plan,
    overrides: Object.fromEntries(
      QUOTA_KEYS.flatMap((k): [QuotaKey, number | null][] => {
        const l = v.limits[k];
        if (l.unlimited) return [[k, null]];
        return l.value === undefined ? [] : [[k, l.value]];
      }),
    ),
  }));
export type QuotaFormValues = z.input<typeof QuotaFormValues>;

/** The form's values for what is stored (the inverse of QuotaFormValues' transform). */
export function quotaFormValues(plan: PlanId | null, overrides: QuotaOverrides): QuotaFormValues {
  return {
    plan: plan ?? "default",
    limits: Object.fromEntries(
      QUOTA_KEYS.map((k) => {
        const o = overrides[k];
        return [k, { value: typeof o === "number" ? o : undefined, unlimited: o === null }];
      }),
    ) as QuotaFormValues["limits"],
  };
}

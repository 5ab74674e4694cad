/**
 * Workspace quotas: the limit keys, the Free / Pro / Enterprise presets and the pure rules over
 * them (effective limits, reset times, messages). The one place these numbers are written; the
 * services enforce them, Settings shows them, docs/quotas.md describes them.
 */

export const PLAN_IDS = ["free", "pro", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const QUOTA_KEYS = [
  "definitionsPerWorkspace",
  "runsPerMonth",
  "stepsPerRun",
  "llmTokensPerStep",
  "llmTokensPerWorkflowPerMonth",
  "minCronIntervalSeconds",
  "webhookRequestsPerMinute",
  "concurrentRunsPerDefinition",
] as const;
export type QuotaKey = (typeof QUOTA_KEYS)[number];

/** A number per key; `null` = unlimited (for minCronIntervalSeconds: no floor beyond the server's). */
export type QuotaLimits = Record<QuotaKey, number | null>;

/** When a counted quota starts again from zero; `null` = it never resets (a standing cap). */
export type QuotaWindow = "month" | "minute" | null;

export const QUOTA_INFO: Record<
  QuotaKey,
  { label: string; unit: string; window: QuotaWindow; max: number }
> = {
  definitionsPerWorkspace: {
    label: "Workflow definitions per workspace",
    unit: "workflows",
    window: null,
    max: 1_000_000,
  },
  runsPerMonth: { label: "Runs per month", unit: "runs", window: "month", max: 1_000_000_000 },
  stepsPerRun: { label: "Steps per run", unit: "step attempts", window: null, max: 1_000_000 },
  llmTokensPerStep: {
    label: "LLM tokens per step",
    unit: "tokens",
    window: null,
    max: 10_000_000,
  },
  llmTokensPerWorkflowPerMonth: {
    label: "LLM tokens per workflow per month",
    unit: "tokens",
    window: "month",
    max: 1_000_000_000_000,
  },
  minCronIntervalSeconds: {
    label: "Minimum schedule interval",
    unit: "seconds",
    window: null,
    max: 86_400,
  },
  webhookRequestsPerMinute: {
    label: "Webhook requests per minute",
    unit: "requests",
    window: "minute",
    max: 1_000_000,
  },
  concurrentRunsPerDefinition: {
    label: "Concurrent runs per workflow",
    unit: "runs",
    window: null,
    max: 10_000,
  },
};

/**
 * The presets. Enterprise is unlimited everywhere: a self-hosted instance on it behaves exactly
 * as before quotas existed (it is the default when SLUICE_DEFAULT_PLAN is unset).
 */
export const PLAN_PRESETS: Record<PlanId, { label: string; limits: QuotaLimits }> = {
  free: {
    label: "Free",
    limits: {
      definitionsPerWorkspace: 10,
      runsPerMonth: 1_000,
      stepsPerRun: 50,
      llmTokensPerStep: 4_000,
      llmTokensPerWorkflowPerMonth: 100_000,
      minCronIntervalSeconds: 900,
      webhookRequestsPerMinute: 60,
      concurrentRunsPerDefinition: 2,
    },
  },
  pro: {
    label: "Pro",
    limits: {
      definitionsPerWorkspace: 200,
      runsPerMonth: 50_000,
      stepsPerRun: 500,
      llmTokensPerStep: 32_000,
      llmTokensPerWorkflowPerMonth: 5_000_000,
      minCronIntervalSeconds: 60,
      webhookRequestsPerMinute: 1_200,
      concurrentRunsPerDefinition: 25,
    },
  },
  enterprise: {
    label: "Enterprise",
    limits: {
      definitionsPerWorkspace: null,
      runsPerMonth: null,
      stepsPerRun: null,
      llmTokensPerStep: null,
      llmTokensPerWorkflowPerMonth: null,
      minCronIntervalSeconds: null,
      webhookRequestsPerMinute: null,
      concurrentRunsPerDefinition: null,
    },
  },
};

export const DEFAULT_PLAN: PlanId = "enterprise";

/** Per-workspace overrides: a number, `null` (unlimited), or absent (the plan's value). */
export type QuotaOverrides = Partial<Record<QuotaKey, number | null>>;

/** The limits a workspace runs under: its plan's preset with the admin's overrides on top. */
export function effectiveLimits(plan: PlanId, overrides: QuotaOverrides = {}): QuotaLimits {
  const limits = { ...PLAN_PRESETS[plan].limits };
  for (const key of QUOTA_KEYS) if (key in overrides) limits[key] = overrides[key] ?? null;
  return limits;
}

/** The smaller of two caps, `null` meaning none. */
export function tighterCap(a: number | null | undefined, b: number | null | undefined) {
  if (a == null) return b ?? null;
  if (b == null) return a;
  return Math.min(a, b);
}

/** Months are calendar months in UTC. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function minuteStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000);
}

/** Start of the window `now` falls in, and when it ends (null window: neither). */
export function quotaWindow(
  window: QuotaWindow,
  now: Date,
): { start: Date; resetsAt: Date } | null {
  if (window === "month") return { start: monthStart(now), resetsAt: nextMonthStart(now) };
  if (window === "minute") {
    const start = minuteStart(now);
    return { start, resetsAt: new Date(start.getTime() + 60_000) };
  }
  return null;
}

/** `2026-12-01T00:00:00Z` (no milliseconds: what an error message shows). */
export function formatResetTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The refusal every enforcement point words the same way:
 * `Quota "Runs per month" reached: 1000 of 1000 runs used (Free plan); resets 2026-12-01T00:00:00Z`.
 */
export function quotaMessage(args: {
  key: QuotaKey;
  limit: number;
  used?: number;
  plan?: PlanId;
  resetsAt?: Date | null;
  detail?: string;
}): string {
  const info = QUOTA_INFO[args.key];
  const used =
    args.used === undefined
      ? `the limit is ${args.limit} ${info.unit}`
      : `${args.used} of ${args.limit} ${info.unit} used`;
  const plan = args.plan ? ` (${PLAN_PRESETS[args.plan].label} plan)` : "";
  const detail = args.detail ? `; ${args.detail}` : "";
  const reset = args.resetsAt
    ? `; resets ${formatResetTime(args.resetsAt)}`
    : "; ask a workspace admin to change the plan or limit in Settings → Quotas";
  return `Quota "${info.label}" reached: ${used}${plan}${detail}${reset}`;
}

/** 0–100 for a usage bar (100 when over; 0 when unlimited). */
export function usagePercent(used: number, limit: number | null): number {
  if (limit === null || limit <= 0) return 0;
  return Math.min(100, Math.round((used / limit) * 100));
}

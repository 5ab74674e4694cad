import { describe, expect, it } from "vitest";
import { QuotaFormValues, quotaFormValues, UpdateWorkspaceQuotaInput } from "../schemas/quotas";
import {
  effectiveLimits,
  formatResetTime,
  PLAN_PRESETS,
  QUOTA_KEYS,
  quotaMessage,
  quotaWindow,
  tighterCap,
  usagePercent,
} from "./plans";

describe("quota plans", () => {
  it("every preset sets every limit; enterprise is unlimited; free ≤ pro", () => {
    for (const plan of Object.values(PLAN_PRESETS))
      expect(Object.keys(plan.limits).sort()).toEqual([...QUOTA_KEYS].sort());
    expect(Object.values(PLAN_PRESETS.enterprise.limits).every((v) => v === null)).toBe(true);
    for (const key of QUOTA_KEYS) {
      const [free, pro] = [PLAN_PRESETS.free.limits[key]!, PLAN_PRESETS.pro.limits[key]!];
      // The schedule interval is a floor: the stricter plan has the larger number.
      if (key === "minCronIntervalSeconds") expect(free).toBeGreaterThanOrEqual(pro);
      else expect(free).toBeLessThanOrEqual(pro);
    }
  });

  it("overrides replace the plan's value: a number, or null for unlimited; absent keys keep it", () => {
    const limits = effectiveLimits("free", { runsPerMonth: 5, stepsPerRun: null });
    expect(limits.runsPerMonth).toBe(5);
    expect(limits.stepsPerRun).toBeNull();
    expect(limits.definitionsPerWorkspace).toBe(PLAN_PRESETS.free.limits.definitionsPerWorkspace);
    expect(tighterCap(10, null)).toBe(10);
    expect(tighterCap(null, 3)).toBe(3);
    expect(tighterCap(10, 3)).toBe(3);
  });

  it("months are calendar months in UTC; minutes reset on the minute", () => {
    const m = quotaWindow("month", new Date("2026-12-31T23:59:59.999Z"))!;
    expect(m.start.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(formatResetTime(m.resetsAt)).toBe("2027-01-01T00:00:00Z");
    const min = quotaWindow("minute", new Date("2026-11-24T10:00:45.500Z"))!;
    expect(min.resetsAt.toISOString()).toBe("2026-11-24T10:01:00.000Z");
    expect(quotaWindow(null, new Date())).toBeNull();
  });

  it("messages name the limit, the usage, the plan and the reset (or who can change it)", () => {
    expect(
      quotaMessage({
        key: "runsPerMonth",
        limit: 1000,
        used: 1000,
        plan: "free",
        resetsAt: new Date("2026-12-01T00:00:00Z"),
      }),
    ).toBe(
      'Quota "Runs per month" reached: 1000 of 1000 runs used (Free plan); resets 2026-12-01T00:00:00Z',
    );
    expect(quotaMessage({ key: "stepsPerRun", limit: 50 })).toBe(
      'Quota "Steps per run" reached: the limit is 50 step attempts; ask a workspace admin to change the plan or limit in Settings → Quotas',
    );
    expect(usagePercent(5, 10)).toBe(50);
    expect(usagePercent(12, 10)).toBe(100);
    expect(usagePercent(12, null)).toBe(0);
  });

  it("the Settings form's values become the procedure's input, and back", () => {
    const input = QuotaFormValues.parse({
      ...quotaFormValues(null, {}),
      plan: "pro",
      limits: {
        ...quotaFormValues(null, {}).limits,
        runsPerMonth: { value: 10, unlimited: false },
        stepsPerRun: { value: 5, unlimited: true },
      },
    });
    expect(input).toEqual({ plan: "pro", overrides: { runsPerMonth: 10, stepsPerRun: null } });
    expect(UpdateWorkspaceQuotaInput.parse(input)).toEqual(input);
    expect(quotaFormValues("pro", input.overrides).limits.stepsPerRun).toEqual({
      value: undefined,
      unlimited: true,
    });
    expect(QuotaFormValues.parse(quotaFormValues(null, {}))).toEqual({ plan: null, overrides: {} });
    expect(
      QuotaFormValues.safeParse({
        ...quotaFormValues(null, {}),
        limits: {
          ...quotaFormValues(null, {}).limits,
          runsPerMonth: { value: 0, unlimited: false },
        },
      }).success,
    ).toBe(false);
  });
});

"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useWatch } from "react-hook-form";
import {
  FormCheckbox,
  FormIssues,
  FormNumber,
  FormSelect,
  useIssueForm,
} from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
import {
  PLAN_IDS,
  PLAN_PRESETS,
  QUOTA_INFO,
  QUOTA_KEYS,
  usagePercent,
  type PlanId,
  type QuotaKey,
} from "@/lib/quotas/plans";
import { QuotaFormValues, quotaFormValues, type QuotaOverrides } from "@/lib/schemas/quotas";
import { useTRPC } from "@/lib/trpc/client";
import { NOW_TICK_MS, useNow } from "@/components/ui/time";
import { resetLabel } from "./quota-format";
import styles from "./quota-settings.module.css";

interface Meter {
  key: QuotaKey;
  used: number;
  limit: number | null;
  resetsAt: string | null;
}

interface QuotaView {
  plan: PlanId;
  planSource: "workspace" | "default";
  defaultPlan: PlanId;
  overrides: QuotaOverrides;
  limits: Record<QuotaKey, number | null>;
  meters: Meter[];
  llmByWorkflow: { workflowId: string; name: string; used: number }[];
  canEdit: boolean;
}

const number = (n: number) => n.toLocaleString("en-US");
const limitText = (key: QuotaKey, limit: number | null) =>
  limit === null
    ? key === "minCronIntervalSeconds"
      ? "Server minimum"
      : "Unlimited"
    : `${number(limit)} ${QUOTA_INFO[key].unit}`;

/**
 * Settings → Quotas: the workspace's usage against its plan (progress bars, with when each count
 * resets), and the plan with per-limit overrides — every member reads, admins change (audited).
 */
export function QuotaSettings() {
  const trpc = useTRPC();
  const quota = useQuery(trpc.quota.get.queryOptions());
  const view = quota.data as QuotaView | undefined;
  if (!view) return null;
  return (
    <div className="stack">
      <QuotaUsage view={view} />
      <QuotaPlanForm
        key={JSON.stringify([view.plan, view.planSource, view.overrides])}
        view={view}
      />
    </div>
  );
}

function QuotaUsage({ view }: { view: QuotaView }) {
  const plan = PLAN_PRESETS[view.plan].label;
  return (
    <section className="card" aria-labelledby="quota-usage-h">
      <div className="card-head">
        <h2 id="quota-usage-h">Usage</h2>
        <span className="badge badge-info">
          {plan} plan{view.planSource === "default" ? " (server default)" : ""}
        </span>
      </div>
      <div className="card-body stack">
        <p className="section-note">
          Months are calendar months in UTC. A request past a limit is refused with a message naming
          the limit and when it resets.
        </p>
        <div className={styles.meters}>
          {view.meters.map((m) => (
            <MeterBar key={m.key} meter={m} />
          ))}
        </div>
        {view.llmByWorkflow.length ? (
          <table className="table" aria-label="LLM tokens by workflow this month">
            <thead>
              <tr>
                <th>Workflow</th>
                <th>LLM tokens this month</th>
              </tr>
            </thead>
            <tbody>
              {view.llmByWorkflow.map((w) => (
                <tr key={w.workflowId}>
                  <td>{w.name}</td>
                  <td>
                    {number(w.used)}
                    {view.limits.llmTokensPerWorkflowPerMonth !== null
                      ? ` of ${number(view.limits.llmTokensPerWorkflowPerMonth)}`
                      : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </section>
  );
}

function MeterBar({ meter }: { meter: Meter }) {
  const info = QUOTA_INFO[meter.key];
  const percent = usagePercent(meter.used, meter.limit);
  const now = useNow(NOW_TICK_MS);
  const label =
    meter.key === "llmTokensPerWorkflowPerMonth" ? "LLM tokens (busiest workflow)" : info.label;
  return (
    <div className={styles.meter}>
      <div className={styles.meterHead}>
        <span>{label}</span>
        <span className="muted">
          {number(meter.used)} / {meter.limit === null ? "unlimited" : number(meter.limit)}
        </span>
      </div>
      <progress
        className={`${styles.bar} ${percent >= 100 ? styles.full : ""}`}
        aria-label={label}
        aria-valuetext={`${number(meter.used)} of ${meter.limit === null ? "unlimited" : number(meter.limit)} ${info.unit}`}
        value={meter.limit === null ? 0 : Math.min(meter.used, meter.limit)}
        max={meter.limit ?? 1}
      />
      {meter.resetsAt ? (
        <span className={`muted ${styles.note}`}>
          <time dateTime={meter.resetsAt}>{resetLabel(new Date(meter.resetsAt), now)}</time>
        </span>
      ) : null}
    </div>
  );
}

function QuotaPlanForm({ view }: { view: QuotaView }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const form = useIssueForm(QuotaFormValues, {
    defaultValues: quotaFormValues(
      view.planSource === "workspace" ? view.plan : null,
      view.overrides,
    ),
  });
  const { control } = form;
  const chosen = useWatch({ control, name: "plan" }) as "default" | PlanId;
  const planLimits = PLAN_PRESETS[chosen === "default" ? view.defaultPlan : chosen].limits;
  const save = useMutation(
    trpc.quota.update.mutationOptions({
      onSuccess: () => {
        toast("Quotas saved");
        void qc.invalidateQueries({ queryKey: trpc.quota.get.queryKey() });
      },
      onError: (e) => form.applyIssues(issuesOf(e)),
    }),
  );
  const disabled = !view.canEdit;
  return (
    <section className="card" aria-labelledby="quota-plan-h">
      <div className="card-head">
        <h2 id="quota-plan-h">Plan and limits</h2>
      </div>
      <div className="card-body stack">
        <p className="section-note">
          A limit left blank takes the plan&apos;s value. The server default plan is{" "}
          {PLAN_PRESETS[view.defaultPlan].label} (SLUICE_DEFAULT_PLAN).
          {view.canEdit ? "" : " Only workspace admins can change the plan and limits."}
        </p>
        <form
          noValidate
          className="stack"
          onSubmit={form.handleSubmit((input) =>
            // Saved values become the form's clean state (the same values do not remount it).
            save.mutate(input, { onSuccess: () => form.reset(form.getValues()) }),
          )}
        >
          <div className={styles.plan}>
            <FormSelect
              control={control}
              name="plan"
              label="Plan"
              disabled={disabled}
              options={[
                ["default", `Server default (${PLAN_PRESETS[view.defaultPlan].label})`],
                ...PLAN_IDS.map((id) => [id, PLAN_PRESETS[id].label] as const),
              ]}
            />
          </div>
          <table className="table" aria-label="Limits">
            <thead>
              <tr>
                <th>Limit</th>
                <th>Plan value</th>
                <th>Override</th>
                <th>Unlimited</th>
              </tr>
            </thead>
            <tbody>
              {QUOTA_KEYS.map((key) => (
                <tr key={key}>
                  <td>{QUOTA_INFO[key].label}</td>
                  <td>{limitText(key, planLimits[key])}</td>
                  {/* Each control's label names its row (read by screen readers, hidden on screen). */}
                  <td className={styles.control}>
                    <FormNumber
                      control={control}
                      name={`limits.${key}.value`}
                      label={`${QUOTA_INFO[key].label} override`}
                      min={1}
                      max={QUOTA_INFO[key].max}
                      placeholder="Plan value"
                      disabled={disabled}
                    />
                  </td>
                  <td className={styles.control}>
                    <FormCheckbox
                      control={control}
                      name={`limits.${key}.unlimited`}
                      label={`${QUOTA_INFO[key].label} unlimited`}
                      disabled={disabled}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <FormIssues
            errors={form.formState.errors}
            fallback={
              save.error && !Object.keys(form.formState.errors).length ? save.error.message : null
            }
          />
          {view.canEdit ? (
            <div className="row">
              <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                Save quotas
              </button>
              <UnsavedBadge dirty={form.formState.isDirty} />
            </div>
          ) : null}
          <UnsavedChangesGuard
            dirty={view.canEdit && form.formState.isDirty}
            what="quota changes"
          />
        </form>
      </div>
    </section>
  );
}

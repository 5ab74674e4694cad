"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { issuesOf, mapIssues } from "@/components/forms/issues";
import { NOW_TICK_MS, RelativeTime, useClock } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import type { InputSpec } from "@/lib/workflow/definition";
import { FORM_FIELD_WORDS } from "@/lib/workflow/inputs";
import { workflowLabel } from "@/lib/schemas/runs";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./approval-gate.module.css";
import { initiatorRuleNote } from "./initiator-rule";
import { RunInputFields } from "./run-input-fields";
import { initialFormValues, parseFormValues, type FormValues } from "./run-input-form";

export interface GateView {
  id: string;
  runId: string;
  stepId: string;
  prompt: string;
  items: unknown;
  quorum: number;
  expiresAt: Date | string | null;
  createdAt?: Date | string;
  workflowName?: string | null;
  canDecide: boolean;
  whyNot: string | null;
  /** Refused because the viewer started the run (explained, with a link to the setting). */
  initiatorRule?: boolean;
  /** The run's workflow, for that link (null: an inline run). */
  workflowId?: string | null;
  resumeToken?: string | null;
  /** Fields the approver fills when approving (the workflow `inputs` shape). */
  form?: Record<string, unknown> | null;
  priority?: string;
  dueAt?: Date | string | null;
}

const PRIORITY_BADGE: Record<string, string> = {
  urgent: "badge badge-danger",
  high: "badge badge-warn",
  low: "badge",
};

/** The deep link that opens one decision in the inbox. */
export const approvalHref = (approvalId: string) =>
  `/approvals?open=${encodeURIComponent(approvalId)}`;

/**
 * One pending approval gate: what is asked, its priority and due date, the form to fill (the
 * manual run form's fields and checks), and approve/reject with a reason when allowed.
 */
export function ApprovalGate({ gate, showRun }: { gate: GateView; showRun?: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const reasonId = useId();
  const form = (gate.form ?? null) as Record<string, InputSpec> | null;
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [values, setValues] = useState<FormValues>(() => (form ? initialFormValues(form) : {}));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const decide = useMutation(
    trpc.approval.decide.mutationOptions({
      onSuccess: async (r, v) => {
        toast(
          r.status === "pending"
            ? `Recorded (${r.approvals}/${r.quorum} approvals)`
            : v.approve
              ? "Approved"
              : "Rejected",
        );
        await Promise.all([
          qc.invalidateQueries({ queryKey: trpc.approval.list.queryKey() }),
          qc.invalidateQueries({ queryKey: trpc.run.get.queryKey({ runId: gate.runId }) }),
          qc.invalidateQueries({ queryKey: trpc.run.steps.queryKey({ runId: gate.runId }) }),
        ]);
      },
      onError: (e) => {
        // The server names form fields as form.<name>: show them next to the fields.
        const mapped = mapIssues(issuesOf(e), {
          within: [["form"]],
          fields: Object.keys(form ?? {}),
        });
        setFieldErrors(mapped.byField);
        setError(e.message);
      },
    }),
  );
  const note =
    gate.initiatorRule && gate.workflowId
      ? initiatorRuleNote({ stepId: gate.stepId, workflowId: gate.workflowId })
      : null;
  const items = Array.isArray(gate.items) ? gate.items : gate.items ? [gate.items] : [];
  const submit = (approve: boolean) => {
    setError(null);
    setFieldErrors({});
    if (!approve && !reason.trim()) {
      setError("Give a reason when rejecting.");
      return;
    }
    // Rejecting needs no form; approving checks it here first with the server's own rules.
    let formValue: Record<string, unknown> | undefined;
    if (approve && form) {
      const parsed = parseFormValues(form, values, FORM_FIELD_WORDS);
      if (!parsed.ok) {
        setFieldErrors(parsed.errors);
        setError(parsed.formError ?? "Fill in the form to approve.");
        return;
      }
      formValue = parsed.value;
    }
    decide.mutate({
      approvalId: gate.id,
      runId: gate.runId,
      approve,
      reason: reason.trim(),
      ...(gate.resumeToken ? { resumeToken: gate.resumeToken } : {}),
      ...(formValue ? { form: formValue } : {}),
    });
  };
  const dueMs = gate.dueAt ? new Date(gate.dueAt).getTime() : null;
  const overdue = useClock(NOW_TICK_MS, (now) => dueMs !== null && dueMs < now, false);
  const priority = gate.priority && gate.priority !== "normal" ? gate.priority : null;
  return (
    <article
      className={`${styles.gate} stack${overdue ? ` ${styles.overdue}` : ""}`}
      aria-label={`Approval: ${gate.prompt}`}
    >
      <div className="row" style={{ justifyContent: "space-between", alignItems: "flex-start" }}>
        <div>
          <strong className="gate-prompt">{gate.prompt}</strong>
          {priority ? (
            <span className={`${PRIORITY_BADGE[priority] ?? "badge"} ${styles.badge}`}>
              {priority}
            </span>
          ) : null}
          {overdue ? (
            <span className={`badge badge-danger ${styles.badge}`} role="status">
              Overdue
            </span>
          ) : null}
          <div className="small muted">
            {showRun ? (
              <>
                {workflowLabel(gate)} ·{" "}
                <Link href={`/runs/${gate.runId}`} className="mono">
                  {gate.runId}
                </Link>{" "}
                ·{" "}
              </>
            ) : null}
            step <span className="mono">{gate.stepId}</span>
            {gate.createdAt ? (
              <>
                {" "}
                · asked <RelativeTime date={gate.createdAt} />
              </>
            ) : null}
            {gate.expiresAt ? (
              <>
                {" "}
                · expires <RelativeTime date={gate.expiresAt} />
              </>
            ) : null}
            {gate.dueAt ? (
              <>
                {" "}
                · <span className={overdue ? styles.overdueText : undefined}>due</span>{" "}
                <RelativeTime date={gate.dueAt} />
              </>
            ) : null}
            {gate.quorum > 1 ? <> · needs {gate.quorum} approvals</> : null}
          </div>
        </div>
        <Link href={approvalHref(gate.id)} className="small" aria-label="Link to this approval">
          Link
        </Link>
      </div>
      {items.length ? (
        <ul className={styles.items}>
          {items.map((it, i) => (
            <li key={i}>{typeof it === "string" ? it : JSON.stringify(it)}</li>
          ))}
        </ul>
      ) : null}
      {gate.canDecide ? (
        <>
          {form && Object.keys(form).length ? (
            <fieldset className={styles.form}>
              <legend>Form (required to approve)</legend>
              <RunInputFields
                inputs={form}
                values={values}
                errors={fieldErrors}
                onChange={(name, v) => setValues((all) => ({ ...all, [name]: v }))}
              />
            </fieldset>
          ) : null}
          <div className="field">
            <label htmlFor={reasonId}>Reason</label>
            <textarea
              id={reasonId}
              rows={2}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              placeholder="Optional when approving, required when rejecting"
            />
          </div>
          {error ? (
            <div className="form-error" role="alert">
              {error}
            </div>
          ) : null}
          <div className="row">
            <button
              type="button"
              className="btn btn-primary"
              disabled={decide.isPending}
              onClick={() => submit(true)}
            >
              Approve
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={decide.isPending}
              onClick={() => submit(false)}
            >
              Reject
            </button>
          </div>
        </>
      ) : (
        <div className="callout" role="note">
          <p style={{ margin: 0 }}>You can’t decide this gate: {gate.whyNot ?? "not allowed"}.</p>
          {note ? (
            <p style={{ margin: "6px 0 0" }}>
              {note.text} <Link href={note.href}>{note.linkText}</Link>
            </p>
          ) : null}
        </div>
      )}
    </article>
  );
}

"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { initiatorRuleNote } from "./initiator-rule";

export interface GateView {
  id: string;
  runId: string;
  stepId: string;
  prompt: string;
  items: unknown;
  quorum: number;
  expiresAt: Date | string | null;
  createdAt?: Date | string;
  workflowName?: string;
  canDecide: boolean;
  whyNot: string | null;
  /** Refused because the viewer started the run (explained, with a link to the setting). */
  initiatorRule?: boolean;
  /** The run's workflow, for that link. */
  workflowId?: string;
  resumeToken?: string | null;
}

/** One pending approval gate: what is asked, and approve/reject with a reason when allowed. */
export function ApprovalGate({ gate, showRun }: { gate: GateView; showRun?: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const reasonId = useId();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
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
      onError: (e) => setError(e.message),
    }),
  );
  const note =
    gate.initiatorRule && gate.workflowId
      ? initiatorRuleNote({ stepId: gate.stepId, workflowId: gate.workflowId })
      : null;
  const items = Array.isArray(gate.items) ? gate.items : gate.items ? [gate.items] : [];
  const submit = (approve: boolean) => {
    setError(null);
    if (!approve && !reason.trim()) {
      setError("Give a reason when rejecting.");
      return;
    }
    decide.mutate({
      approvalId: gate.id,
      runId: gate.runId,
      approve,
      reason: reason.trim(),
      ...(gate.resumeToken ? { resumeToken: gate.resumeToken } : {}),
    });
  };
  return (
    <article className="gate stack" aria-label={`Approval: ${gate.prompt}`}>
      <div className="row" style={{ justifyContent: "space-between", alignItems: "flex-start" }}>
        <div>
          <strong className="gate-prompt">{gate.prompt}</strong>
          <div className="small muted">
            {showRun ? (
              <>
                {gate.workflowName} ·{" "}
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
            {gate.quorum > 1 ? <> · needs {gate.quorum} approvals</> : null}
          </div>
        </div>
      </div>
      {items.length ? (
        <ul className="gate-items">
          {items.map((it, i) => (
            <li key={i}>{typeof it === "string" ? it : JSON.stringify(it)}</li>
          ))}
        </ul>
      ) : null}
      {gate.canDecide ? (
        <>
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

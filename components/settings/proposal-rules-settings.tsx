"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import {
  RULE_EFFECTS,
  type ProposalRule,
  type ProposalRuleSet,
} from "@/lib/schemas/proposal-rules";
import { errorMessage, useTRPC } from "@/lib/trpc/client";
import styles from "./proposal-rules-settings.module.css";

const EFFECT_LABELS: Record<ProposalRule["effect"], string> = {
  refuse: "Refuse the proposal",
  require_admin_review: "Require an admin review",
  warn: "Warn",
};

/** Settings → Proposal rules: CEL rules over a proposal's change (docs/proposals.md). */
export function ProposalRulesSettings() {
  const trpc = useTRPC();
  const { can } = useRole();
  const saved = useQuery(trpc.proposalRules.get.queryOptions());
  if (saved.isPending)
    return (
      <div className="card">
        <LoadingRows label="Loading proposal rules" />
      </div>
    );
  if (saved.error)
    return (
      <div className="card">
        <ErrorState message={saved.error.message} onRetry={() => saved.refetch()} />
      </div>
    );
  return (
    <RulesForm
      key={JSON.stringify(saved.data.rules) + saved.data.allowedDomains.join()}
      saved={saved.data}
      presets={saved.data.presets}
      isAdmin={can("admin")}
    />
  );
}

function RulesForm({
  saved,
  presets,
  isAdmin,
}: {
  saved: ProposalRuleSet;
  presets: readonly ProposalRule[];
  isAdmin: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [rules, setRules] = useState<ProposalRule[]>(saved.rules);
  const [domains, setDomains] = useState(saved.allowedDomains.join("\n"));
  const draft = (): ProposalRuleSet => ({
    rules,
    allowedDomains: domains
      .split(/[\s,]+/)
      .map((d) => d.trim())
      .filter(Boolean),
  });
  const preview = useMutation(trpc.proposalRules.preview.mutationOptions());
  const save = useMutation(
    trpc.proposalRules.update.mutationOptions({
      onSuccess: async () => {
        toast("Proposal rules saved");
        await qc.invalidateQueries({ queryKey: trpc.proposalRules.get.queryKey() });
      },
    }),
  );
  const change = (i: number, patch: Partial<ProposalRule>) =>
    setRules((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const unused = presets.filter((p) => !rules.some((r) => r.name === p.name));
  const error = save.error ?? preview.error;

  return (
    <>
      <section className="card" aria-labelledby="rules-h">
        <div className="card-head">
          <h2 id="rules-h">Proposal rules</h2>
          <p className="faint small">
            Each rule is a CEL test over the proposal&apos;s change (
            <code>change.addedDomains</code>, <code>change.removedGates</code>,{" "}
            <code>change.stepTypesAdded</code>, <code>author.role</code>,{" "}
            <code>workspace.allowedDomains</code>, …). When it is true the rule refuses the
            proposal, requires an admin review, or warns.
          </p>
        </div>
        <div className="card-body">
          {rules.length === 0 ? <p className="faint">No rules: only the policies apply.</p> : null}
          <ol className={styles.rules}>
            {rules.map((rule, i) => (
              <li key={i} className={styles.rule} aria-label={`Rule ${i + 1}`}>
                <Field
                  label="Name"
                  value={rule.name}
                  disabled={!isAdmin}
                  onChange={(e) => change(i, { name: e.target.value })}
                />
                <Field
                  label="Expression"
                  render={(p) => (
                    <textarea
                      {...p}
                      className={styles.expression}
                      rows={2}
                      value={rule.expression}
                      disabled={!isAdmin}
                      spellCheck={false}
                      onChange={(e) => change(i, { expression: e.target.value })}
                    />
                  )}
                />
                <Field
                  label="Effect"
                  render={(p) => (
                    <select
                      {...p}
                      value={rule.effect}
                      disabled={!isAdmin}
                      onChange={(e) =>
                        change(i, { effect: e.target.value as ProposalRule["effect"] })
                      }
                    >
                      {RULE_EFFECTS.map((effect) => (
                        <option key={effect} value={effect}>
                          {EFFECT_LABELS[effect]}
                        </option>
                      ))}
                    </select>
                  )}
                />
                <Field
                  label="Message"
                  value={rule.message}
                  disabled={!isAdmin}
                  onChange={(e) => change(i, { message: e.target.value })}
                />
                {isAdmin ? (
                  <button
                    type="button"
                    className="btn btn-sm btn-ghost"
                    onClick={() => setRules((rs) => rs.filter((_, j) => j !== i))}
                  >
                    Remove rule {i + 1}
                  </button>
                ) : null}
              </li>
            ))}
          </ol>
          {isAdmin ? (
            <div className="row" style={{ flexWrap: "wrap" }}>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() =>
                  setRules((rs) => [
                    ...rs,
                    { name: `Rule ${rs.length + 1}`, expression: "", effect: "warn", message: "" },
                  ])
                }
              >
                Add rule
              </button>
              {unused.map((p) => (
                <button
                  key={p.name}
                  type="button"
                  className="btn btn-sm btn-ghost"
                  onClick={() => setRules((rs) => [...rs, { ...p }])}
                >
                  Add preset: {p.name}
                </button>
              ))}
            </div>
          ) : null}
          <Field
            label="Allowed domains (workspace.allowedDomains)"
            hint="One per line: api.example.com or *.example.com"
            render={(p) => (
              <textarea
                {...p}
                rows={3}
                value={domains}
                disabled={!isAdmin}
                onChange={(e) => setDomains(e.target.value)}
              />
            )}
          />
          {error ? (
            <div className="form-error" role="alert">
              {errorMessage(error)}
            </div>
          ) : null}
          {isAdmin ? (
            <div className="row">
              <button
                type="button"
                className="btn"
                disabled={preview.isPending}
                onClick={() => {
                  save.reset();
                  preview.mutate(draft());
                }}
              >
                {preview.isPending ? "Previewing…" : "Preview on recent proposals"}
              </button>
              <button
                type="button"
                className="btn btn-primary"
                disabled={save.isPending}
                onClick={() => {
                  preview.reset();
                  save.mutate(draft());
                }}
              >
                {save.isPending ? "Saving…" : "Save rules"}
              </button>
            </div>
          ) : null}
        </div>
      </section>
      {preview.data ? <PreviewTable items={preview.data.items} /> : null}
    </>
  );
}

type PreviewItem = {
  proposalId: string;
  workflowId: string;
  summary: string;
  status: string;
  fired: string[];
};

function PreviewTable({ items }: { items: PreviewItem[] }) {
  return (
    <section className="card" aria-labelledby="rules-preview-h">
      <div className="card-head">
        <h2 id="rules-preview-h">Preview: the last {items.length} proposals</h2>
      </div>
      {items.length === 0 ? (
        <p className="card-body faint">No proposals yet in this workspace.</p>
      ) : (
        <table className="table" aria-label="Rules that would fire">
          <thead>
            <tr>
              <th scope="col">Proposal</th>
              <th scope="col">Status</th>
              <th scope="col">Rules that would fire</th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr key={i.proposalId}>
                <td>
                  <a href={`/workflows/${i.workflowId}/proposals/${i.proposalId}`}>{i.summary}</a>
                </td>
                <td>{i.status}</td>
                <td>{i.fired.length ? i.fired.join(", ") : <span className="faint">none</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

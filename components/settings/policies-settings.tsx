"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { CheckboxGrid } from "@/components/ui/checkbox-grid";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
import { AllowedPrivateHost, type WorkspacePolicies } from "@/lib/schemas/workspace";
import { STEP_CATALOG, STEP_TYPES, type StepType } from "@/lib/workflow/catalog";
import { useTRPC } from "@/lib/trpc/client";
import type { ApprovalTarget } from "@/lib/workflow/required-approvals";
import { RequiredApprovalsField } from "./required-approvals-field";
import check from "@/components/ui/check.module.css";
import chips from "./chips.module.css";
import { X } from "lucide-react";

/** Script steps, private hosts, forbidden step types, required approvals. Everyone reads; admins change. */
export function PoliciesSettings() {
  const trpc = useTRPC();
  const { can } = useRole();
  const settings = useQuery(trpc.settings.get.queryOptions());
  if (settings.isPending) {
    return (
      <div className="card">
        <LoadingRows label="Loading policies" />
      </div>
    );
  }
  if (settings.error) {
    return (
      <div className="card">
        <ErrorState message={settings.error.message} onRetry={() => settings.refetch()} />
      </div>
    );
  }
  return (
    <PoliciesForm
      key={JSON.stringify(settings.data.policies)}
      saved={settings.data.policies}
      isAdmin={can("admin")}
    />
  );
}

function PoliciesForm({ saved, isAdmin }: { saved: WorkspacePolicies; isAdmin: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [scripts, setScripts] = useState(saved.scriptStepsEnabled);
  const [scriptNetwork, setScriptNetwork] = useState(saved.scriptNetwork === "allowed");
  const [hosts, setHosts] = useState<string[]>(saved.allowedPrivateHosts);
  const [forbidden, setForbidden] = useState<StepType[]>(saved.forbiddenStepTypes);
  const [required, setRequired] = useState<ApprovalTarget[]>(saved.requiredApprovals);
  const [selfApproval, setSelfApproval] = useState(saved.allowSelfApproval);
  const [dryRunRuns, setDryRunRuns] = useState(String(saved.proposalDryRunRuns));
  const [requireVerified, setRequireVerified] = useState(saved.requireVerifiedToApply);
  const dryRunRunsId = useId();
  const [draftHost, setDraftHost] = useState("");
  const [hostError, setHostError] = useState<string | undefined>();
  const hostInputId = useId();
  const save = useMutation(
    trpc.settings.updatePolicies.mutationOptions({
      onSuccess: () => {
        toast("Policies saved");
        void qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      },
    }),
  );
  const dirty =
    scripts !== saved.scriptStepsEnabled ||
    scriptNetwork !== (saved.scriptNetwork === "allowed") ||
    JSON.stringify(hosts) !== JSON.stringify(saved.allowedPrivateHosts) ||
    JSON.stringify([...forbidden].sort()) !==
      JSON.stringify([...saved.forbiddenStepTypes].sort()) ||
    JSON.stringify([...required].sort()) !== JSON.stringify([...saved.requiredApprovals].sort()) ||
    selfApproval !== saved.allowSelfApproval ||
    Number(dryRunRuns) !== saved.proposalDryRunRuns ||
    requireVerified !== saved.requireVerifiedToApply;
  const readOnly = !isAdmin;

  const addHost = () => {
    const parsed = AllowedPrivateHost.safeParse(draftHost);
    if (!parsed.success) return setHostError(parsed.error.issues[0]?.message);
    if (hosts.includes(parsed.data)) return setHostError(`${parsed.data} is already listed`);
    setHosts([...hosts, parsed.data]);
    setDraftHost("");
    setHostError(undefined);
  };

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          scriptStepsEnabled: scripts,
          scriptNetwork: scriptNetwork ? "allowed" : "none",
          allowedPrivateHosts: hosts,
          forbiddenStepTypes: forbidden,
          requiredApprovals: required,
          allowSelfApproval: selfApproval,
          proposalDryRunRuns: Number(dryRunRuns),
          requireVerifiedToApply: requireVerified,
        });
      }}
    >
      {readOnly ? (
        <div className="callout">
          Only workspace admins can change policies. You are viewing them read-only.
        </div>
      ) : null}

      <section className="card" aria-labelledby="scripts-h">
        <div className="card-head">
          <h2 id="scripts-h">Script steps</h2>
          {saved.scriptStepsEnabled ? (
            <span className="badge badge-warn">Enabled</span>
          ) : (
            <span className="badge">Disabled</span>
          )}
        </div>
        <div className="card-body stack">
          <div className="callout callout-warn">
            Script steps run shell commands <strong>on the Sluice server</strong>. Anyone who can
            edit a workflow in this workspace can then run code there. Each script runs in a
            bubblewrap sandbox (read-only system folders, only its run&apos;s scratch folder
            writable, an unprivileged user, no view of Sluice&apos;s data, keys or environment) with
            resource limits, but it shares the server&apos;s kernel. Enable only if you trust every
            editor.
          </div>
          <label className={check.check}>
            <input
              type="checkbox"
              checked={scripts}
              disabled={readOnly}
              onChange={(e) => setScripts(e.target.checked)}
            />
            <span>Allow script steps in this workspace</span>
          </label>
          <label className={check.check}>
            <input
              type="checkbox"
              checked={scriptNetwork}
              disabled={readOnly}
              onChange={(e) => setScriptNetwork(e.target.checked)}
            />
            <span>Let script steps use the network</span>
          </label>
          <p className="section-note">
            Off by default: scripts get no network at all. On, they reach whatever the server
            reaches, private and loopback addresses included (no allow-list applies).
          </p>
        </div>
      </section>

      <section className="card" aria-labelledby="hosts-h">
        <div className="card-head">
          <h2 id="hosts-h">Allowed private hosts</h2>
          <span className="badge">{hosts.length}</span>
        </div>
        <div className="card-body stack">
          <p className="section-note">
            HTTP, LLM, agent (MCP) and notify steps refuse loopback, private-network, link-local and
            cloud metadata addresses. List the internal hosts they may reach anyway: a host name (
            <code>build.internal</code>, or <code>*.corp.example</code> for subdomains), an IP
            address, or a CIDR range (<code>10.20.0.0/16</code>). Metadata endpoints open only with
            their exact address.
          </p>
          {hosts.length ? (
            <ul className={chips.chips} aria-label="Allowed private hosts">
              {hosts.map((h) => (
                <li key={h} className={chips.chip}>
                  {h}
                  {!saved.allowedPrivateHosts.includes(h) ? (
                    <span className="faint small"> (not saved yet)</span>
                  ) : null}
                  {!readOnly ? (
                    <button
                      type="button"
                      aria-label={`Remove ${h}`}
                      onClick={() => setHosts(hosts.filter((x) => x !== h))}
                    >
                      <X aria-hidden size={14} />
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="section-note">
              <em>None: only public addresses are reachable.</em>
            </p>
          )}
          {!readOnly ? (
            <div className="field" style={{ maxWidth: 480 }}>
              <label htmlFor={hostInputId}>Add a host</label>
              <div className="row" style={{ flexWrap: "nowrap" }}>
                <input
                  id={hostInputId}
                  type="text"
                  value={draftHost}
                  placeholder="10.0.0.0/8 or build.internal"
                  spellCheck={false}
                  aria-invalid={hostError ? true : undefined}
                  aria-describedby={hostError ? `${hostInputId}-err` : undefined}
                  onChange={(e) => {
                    setDraftHost(e.target.value);
                    setHostError(undefined);
                  }}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") {
                      e.preventDefault();
                      addHost();
                    }
                  }}
                />
                <button type="button" className="btn" onClick={addHost}>
                  Add
                </button>
              </div>
              {hostError ? (
                <div id={`${hostInputId}-err`} className="error">
                  {hostError}
                </div>
              ) : null}
            </div>
          ) : null}
        </div>
      </section>

      <section className="card" aria-labelledby="forbidden-h">
        <div className="card-head">
          <h2 id="forbidden-h">Forbidden step types</h2>
          <span className="badge">{forbidden.length}</span>
        </div>
        <div className="card-body">
          <fieldset className="plain">
            <legend className="section-note" style={{ fontWeight: 400, fontSize: 12.5 }}>
              Publishing a workflow or applying a proposal that uses one of these types is refused
              in this workspace.
            </legend>
            <CheckboxGrid
              options={STEP_TYPES.map((type) => ({
                value: type,
                label: (
                  <>
                    {STEP_CATALOG[type].label} <code className="faint">{type}</code>
                  </>
                ),
              }))}
              value={forbidden}
              onChange={setForbidden}
              disabled={readOnly}
            />
          </fieldset>
        </div>
      </section>

      <section className="card" aria-labelledby="required-approvals-h">
        <div className="card-head">
          <h2 id="required-approvals-h">Required approvals</h2>
          <span className="badge">{required.length}</span>
        </div>
        <div className="card-body">
          <RequiredApprovalsField value={required} onChange={setRequired} readOnly={readOnly} />
        </div>
      </section>

      <section className="card" aria-labelledby="proposals-h">
        <div className="card-head">
          <h2 id="proposals-h">Change proposals</h2>
        </div>
        <div className="card-body stack">
          <label className={check.check}>
            <input
              type="checkbox"
              checked={selfApproval}
              disabled={readOnly}
              onChange={(e) => setSelfApproval(e.target.checked)}
            />
            <span>Let a proposer approve their own change proposal</span>
          </label>
          <p className="section-note">
            Off by default: a second person (approver or above) reviews every proposal. Turn it on
            only for a workspace run by one person.
          </p>
          <div className="field" style={{ maxWidth: 240 }}>
            <label htmlFor={dryRunRunsId}>Runs replayed by a dry run</label>
            <input
              id={dryRunRunsId}
              type="number"
              min={1}
              max={100}
              value={dryRunRuns}
              disabled={readOnly}
              onChange={(e) => setDryRunRuns(e.target.value)}
            />
            <div className="muted small">
              A proposal is replayed against this many of the workflow&apos;s latest finished runs
              (1–100).
            </div>
          </div>
          <label className={check.check}>
            <input
              type="checkbox"
              checked={requireVerified}
              disabled={readOnly}
              onChange={(e) => setRequireVerified(e.target.checked)}
            />
            <span>Apply only proposals the engine verified</span>
          </label>
          <p className="section-note">
            Verified: every changed step ran in a replayed run, served from recorded side effects,
            with nothing unverified. An admin may still apply with a written reason, which is
            audited.
          </p>
        </div>
      </section>

      {isAdmin ? (
        // Sticky, so the Save button and the unsaved state stay in sight from every section.
        <div
          className="row"
          style={{
            position: "sticky",
            bottom: 0,
            padding: "10px 0",
            background: "var(--bg)",
            borderTop: dirty ? "1px solid var(--border)" : undefined,
          }}
        >
          <button className="btn btn-primary" type="submit" disabled={!dirty || save.isPending}>
            {save.isPending ? <span className="spinner" aria-hidden /> : null}
            Save policies
          </button>
          <UnsavedBadge dirty={dirty} />
        </div>
      ) : null}
      <UnsavedChangesGuard
        dirty={isAdmin && (dirty || draftHost.trim() !== "")}
        what="policy changes"
      />
      {save.error ? (
        <div className="form-error" role="alert">
          {save.error.message}
        </div>
      ) : null}
    </form>
  );
}

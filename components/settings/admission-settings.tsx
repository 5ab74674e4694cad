"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { mapIssues, issuesOf } from "@/components/forms/issues";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
import { useTRPC } from "@/lib/trpc/client";

type Limit = { set: number | null; default: number; effective: number };
type Admission = { maxActiveRunsPerUser: Limit; maxActiveRunsPerWorkspace: Limit };

/**
 * How many runs may be active at once, per person and per workspace (running, waiting and
 * cancelling runs hold a slot; the rest wait in the FIFO queue). Blank = the server default.
 * Everyone sees the effective values; admins change them (audited).
 */
export function AdmissionSettings() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const admission = settings.data?.admission as Admission | undefined;
  if (!admission) return null;
  return <AdmissionForm key={JSON.stringify(admission)} saved={admission} />;
}

function AdmissionForm({ saved }: { saved: Admission }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { can } = useRole();
  const isAdmin = can("admin");
  const [perUser, setPerUser] = useState(saved.maxActiveRunsPerUser.set?.toString() ?? "");
  const [perWorkspace, setPerWorkspace] = useState(
    saved.maxActiveRunsPerWorkspace.set?.toString() ?? "",
  );
  const save = useMutation(
    trpc.settings.updateAdmissionLimits.mutationOptions({
      onSuccess: () => {
        toast("Admission limits saved");
        void qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      },
    }),
  );
  const dirty =
    perUser !== (saved.maxActiveRunsPerUser.set?.toString() ?? "") ||
    perWorkspace !== (saved.maxActiveRunsPerWorkspace.set?.toString() ?? "");
  const errors = save.error ? mapIssues(issuesOf(save.error)).byField : {};
  const toValue = (text: string) => (text.trim() === "" ? null : Number(text));
  const hint = (l: Limit) =>
    `In effect: ${l.effective}${l.set === null ? " (the server default)" : ""}. Leave blank for the server default (${l.default}).`;
  return (
    <section className="card" aria-labelledby="admission-h">
      <div className="card-head">
        <h2 id="admission-h">Admission limits</h2>
      </div>
      <p className="section-note">
        Runs that are running, waiting (approvals, delays, events) or being cancelled hold a slot;
        new runs past a limit wait in the queue, oldest first, unless their workflow&apos;s overflow
        policy says otherwise.
      </p>
      <form
        noValidate
        className="row"
        style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({
            maxActiveRunsPerUser: toValue(perUser),
            maxActiveRunsPerWorkspace: toValue(perWorkspace),
          });
        }}
      >
        <Field
          label="Active runs per person"
          type="number"
          min={1}
          max={1000}
          value={perUser}
          disabled={!isAdmin}
          placeholder={String(saved.maxActiveRunsPerUser.default)}
          onChange={(e) => setPerUser(e.target.value)}
          hint={hint(saved.maxActiveRunsPerUser)}
          error={errors.maxActiveRunsPerUser}
        />
        <Field
          label="Active runs per workspace"
          type="number"
          min={1}
          max={10000}
          value={perWorkspace}
          disabled={!isAdmin}
          placeholder={String(saved.maxActiveRunsPerWorkspace.default)}
          onChange={(e) => setPerWorkspace(e.target.value)}
          hint={hint(saved.maxActiveRunsPerWorkspace)}
          error={errors.maxActiveRunsPerWorkspace}
        />
        {isAdmin ? (
          <div className="row" style={{ alignSelf: "flex-end" }}>
            <button type="submit" className="btn btn-primary" disabled={!dirty || save.isPending}>
              Save limits
            </button>
            <UnsavedBadge dirty={dirty} />
          </div>
        ) : null}
        <UnsavedChangesGuard dirty={isAdmin && dirty} what="admission limits" />
      </form>
    </section>
  );
}

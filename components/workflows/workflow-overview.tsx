"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { WorkflowAlertsCard } from "@/components/alerts/workflow-alerts-card";
import { SelfModificationCard } from "@/components/proposals/self-modification-card";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { useWorkflow } from "./use-workflow";
import switchStyles from "@/components/ui/switch.module.css";
import grid from "@/components/ui/grids.module.css";

export function WorkflowOverview({ workflowId }: { workflowId: string }) {
  const wf = useWorkflow(workflowId);
  const { can } = useRole();
  if (wf.isPending)
    return (
      <div className="card">
        <LoadingRows rows={4} />
      </div>
    );
  if (!wf.data) return null;
  const d = wf.data;
  const errors = d.issues.filter((i) => i.severity === "error");
  const warnings = d.issues.filter((i) => i.severity === "warning");
  return (
    <div className={grid.overview}>
      <DetailsCard key={`${d.name}|${d.slug}|${d.description}|${d.tags.join(",")}`} workflow={d} />
      <section className="card" aria-labelledby="ver-h">
        <div className="card-head">
          <h2 id="ver-h">Version</h2>
          <Link href={`/workflows/${workflowId}/versions`}>History</Link>
        </div>
        <div className="card-body stack">
          {d.currentVersion ? (
            <div>
              Published <strong>v{d.currentVersion.version}</strong>{" "}
              <RelativeTime date={d.currentVersion.createdAt} />
              <div className="mono faint small" title="Canonical hash of the published definition">
                {d.currentVersion.hash.slice(0, 23)}…
              </div>
            </div>
          ) : (
            <div className="muted">Not published yet.</div>
          )}
          <div>
            Draft saved <RelativeTime date={d.draftUpdatedAt} /> (revision {d.draftRevision}){" "}
            {d.hasDraftChanges ? (
              <span className="badge badge-warn">unpublished changes</span>
            ) : (
              <span className="badge badge-ok">matches published</span>
            )}
          </div>
          {errors.length ? (
            <div className="callout callout-warn">
              The draft has {errors.length} problem{errors.length === 1 ? "" : "s"}:{" "}
              {errors[0]!.message}{" "}
              <Link href={`/workflows/${workflowId}/edit`}>Open the editor</Link>
            </div>
          ) : warnings.length ? (
            <div className="callout">{warnings.length} warning(s) in the draft.</div>
          ) : null}
          <div>
            <Link className="btn" href={`/workflows/${workflowId}/edit`}>
              Edit definition
            </Link>
          </div>
        </div>
      </section>
      {can("editor") ? (
        <SelfModificationCard
          workflowId={workflowId}
          currentVersionId={d.currentVersion?.id ?? null}
        />
      ) : null}
      <WorkflowAlertsCard workflowId={workflowId} />
    </div>
  );
}

function DetailsCard({
  workflow,
}: {
  workflow: {
    id: string;
    name: string;
    slug: string;
    description: string;
    tags: string[];
    isEnabled: boolean;
  };
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { can } = useRole();
  const canEdit = can("editor");
  const [name, setName] = useState(workflow.name);
  const [slug, setSlug] = useState(workflow.slug);
  const [description, setDescription] = useState(workflow.description);
  const [tags, setTags] = useState(workflow.tags.join(", "));
  const update = useMutation(
    trpc.workflow.update.mutationOptions({
      onSuccess: () => {
        toast("Saved");
        void qc.invalidateQueries({
          queryKey: trpc.workflow.get.queryKey({ workflowId: workflow.id }),
        });
        void qc.invalidateQueries({ queryKey: trpc.workflow.list.infiniteQueryKey() });
      },
    }),
  );
  const issues =
    (update.error?.data as { issues?: { path?: string[]; message: string }[] } | undefined)
      ?.issues ?? [];
  const errorFor = (field: string) => issues.find((i) => i.path?.[0] === field)?.message;
  return (
    <section className="card" aria-labelledby="details-h">
      <div className="card-head">
        <h2 id="details-h">Details</h2>
        <label className="row small" style={{ margin: 0, fontWeight: 400 }}>
          <span className={switchStyles.switch}>
            <input
              type="checkbox"
              role="switch"
              aria-label="Enabled"
              checked={workflow.isEnabled}
              disabled={!canEdit || update.isPending}
              onChange={(e) =>
                update.mutate({ workflowId: workflow.id, isEnabled: e.target.checked })
              }
            />
            <span aria-hidden />
          </span>
          {workflow.isEnabled ? "Enabled" : "Disabled"}
        </label>
      </div>
      <form
        className="card-body form"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({
            workflowId: workflow.id,
            name,
            slug,
            description,
            tags: tags
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean),
          });
        }}
      >
        <Field
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          disabled={!canEdit}
          error={errorFor("name")}
        />
        <Field
          label="Slug"
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
          disabled={!canEdit}
          error={errorFor("slug")}
          hint="Used by the API, the CLI and subworkflow steps."
        />
        <Field
          label="Description"
          error={errorFor("description")}
          render={(p) => (
            <textarea
              {...p}
              rows={3}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              disabled={!canEdit}
              style={{ fontFamily: "inherit" }}
            />
          )}
        />
        <Field
          label="Tags"
          value={tags}
          onChange={(e) => setTags(e.target.value)}
          disabled={!canEdit}
          hint="Comma-separated."
          error={errorFor("tags")}
        />
        {update.error && !issues.length ? (
          <div className="form-error" role="alert">
            {update.error.message}
          </div>
        ) : null}
        {canEdit ? (
          <div>
            <button className="btn btn-primary" type="submit" disabled={update.isPending}>
              Save details
            </button>
          </div>
        ) : null}
      </form>
    </section>
  );
}

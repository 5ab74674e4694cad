"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Tabs } from "@/components/shell/tabs";
import { useRole } from "@/components/shell/role-context";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { RunWorkflowButton } from "@/components/runs/run-workflow-dialog";
import { ErrorState } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";
import { useWorkflow } from "./use-workflow";
import { WorkflowStatusBadges } from "./workflow-status-badge";

export function WorkflowHeader({ workflowId }: { workflowId: string }) {
  const wf = useWorkflow(workflowId);
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const { can } = useRole();
  const [deleting, setDeleting] = useState(false);
  const [confirmName, setConfirmName] = useState("");
  const duplicate = useMutation(
    trpc.workflow.duplicate.mutationOptions({
      onSuccess: (copy) => {
        toast(`Created “${copy.name}”`);
        router.push(`/workflows/${copy.id}`);
      },
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const del = useMutation(
    trpc.workflow.delete.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.workflow.list.infiniteQueryKey() });
        toast("Workflow deleted");
        router.push("/workflows");
      },
    }),
  );

  async function download(format: "json" | "yaml") {
    try {
      const file = await client.workflow.export.query({
        workflowId,
        format,
        version: wf.data?.currentVersion ? "current" : "draft",
      });
      const url = URL.createObjectURL(new Blob([file.content], { type: file.contentType }));
      const a = document.createElement("a");
      a.href = url;
      a.download = file.filename;
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      toast((e as Error).message, "error");
    }
  }

  if (wf.error) {
    return (
      <div className="card">
        <ErrorState
          message={
            wf.error.data?.code === "NOT_FOUND"
              ? "This workflow does not exist or was deleted."
              : wf.error.message
          }
        />
      </div>
    );
  }
  const data = wf.data;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{data?.name ?? "…"}</h1>
          <p className="row">
            <span className="mono faint">{data?.slug}</span>
            {data ? (
              <WorkflowStatusBadges
                currentVersion={data.currentVersion?.version ?? null}
                hasDraftChanges={data.hasDraftChanges}
                isEnabled={data.isEnabled}
              />
            ) : null}
          </p>
        </div>
        <div className="row">
          <button type="button" className="btn" onClick={() => download("json")}>
            Export JSON
          </button>
          <button type="button" className="btn" onClick={() => download("yaml")}>
            Export YAML
          </button>
          {can("editor") && data ? (
            <RunWorkflowButton
              workflowId={workflowId}
              versionId={data.currentVersion?.id ?? null}
              version={data.currentVersion?.version ?? null}
            />
          ) : null}
          {can("editor") ? (
            <>
              <button
                type="button"
                className="btn"
                disabled={duplicate.isPending}
                onClick={() => duplicate.mutate({ workflowId })}
              >
                Duplicate
              </button>
              <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            </>
          ) : null}
        </div>
      </div>
      <Tabs
        label="Workflow sections"
        items={[
          { href: `/workflows/${workflowId}`, label: "Overview" },
          { href: `/workflows/${workflowId}/edit`, label: "Editor" },
          { href: `/workflows/${workflowId}/versions`, label: "Versions" },
          { href: `/workflows/${workflowId}/runs`, label: "Runs" },
          { href: `/workflows/${workflowId}/triggers`, label: "Triggers", prefix: true },
          { href: `/workflows/${workflowId}/proposals`, label: "Proposals", prefix: true },
        ]}
      />
      <Dialog
        open={deleting}
        onClose={() => {
          setDeleting(false);
          setConfirmName("");
          del.reset();
        }}
        title={`Delete “${data?.name}”?`}
        footer={
          <>
            <button type="button" className="btn" onClick={() => setDeleting(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={confirmName !== data?.name || del.isPending}
              onClick={() => del.mutate({ workflowId, confirmName })}
            >
              Delete workflow
            </button>
          </>
        }
      >
        <div className="stack">
          <p style={{ margin: 0 }}>
            The workflow stops running and disappears from lists. Its versions and past runs stay in
            the audit history.
          </p>
          <Field
            label={`Type “${data?.name}” to confirm`}
            value={confirmName}
            onChange={(e) => setConfirmName(e.target.value)}
            autoComplete="off"
          />
          {del.error ? (
            <div className="form-error" role="alert">
              {del.error.message}
            </div>
          ) : null}
        </div>
      </Dialog>
    </>
  );
}

"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { bumpVersion, formatVersion } from "@/lib/semver";
import { useTRPC } from "@/lib/trpc/client";

type Bump = "patch" | "minor" | "major";

/** The version a bump of `current` publishes ("1.0.0" for a first version). */
export function previewBump(current: string | null, bump: Bump): string {
  const cur = current?.split(".").map(Number);
  return cur && cur.length === 3 && cur.every(Number.isInteger)
    ? formatVersion(bumpVersion({ major: cur[0]!, minor: cur[1]!, patch: cur[2]! }, bump))
    : "1.0.0";
}

export function PublishDialog({
  open,
  onClose,
  workflowId,
  draftRevision,
  currentVersion,
  warnings = [],
  onPublished,
}: {
  open: boolean;
  onClose: () => void;
  workflowId: string;
  draftRevision: number;
  currentVersion: string | null;
  /**
   * The draft's warnings (e.g. a number compared with text): publishing is allowed, but they are
   * shown before the person confirms, not only in the Problems list they may not have opened.
   */
  warnings?: readonly { message: string }[];
  /** The hash now current (the new version's, or the unchanged one's). */
  onPublished?: (hash: string) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [bump, setBump] = useState<Bump>("patch");
  const [notes, setNotes] = useState("");
  const publish = useMutation(
    trpc.workflow.publish.mutationOptions({
      onSuccess: (r) => {
        // Warnings only the server can raise (e.g. a gate no one but you could decide) are told here.
        const warning = r.warnings[0];
        toast(
          (r.status === "unchanged"
            ? `Nothing to publish: the draft is identical to v${r.version}`
            : `Published v${r.version}`) +
            (warning
              ? ` — ${r.warnings.length > 1 ? `${r.warnings.length} warnings, first: ` : "warning: "}${warning.message}`
              : ""),
        );
        onPublished?.(r.hash);
        void qc.invalidateQueries({ queryKey: trpc.workflow.get.queryKey({ workflowId }) });
        void qc.invalidateQueries({ queryKey: trpc.workflow.versions.queryKey({ workflowId }) });
        void qc.invalidateQueries({ queryKey: trpc.workflow.list.infiniteQueryKey() });
        setNotes("");
        onClose();
      },
    }),
  );
  const preview = (b: Bump) => previewBump(currentVersion, b);
  const issues = (
    publish.error?.data as
      { issues?: { message: string; path?: (string | number)[] }[] } | undefined
  )?.issues;
  return (
    <Dialog
      open={open}
      onClose={() => {
        publish.reset();
        onClose();
      }}
      title="Publish a new version"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={publish.isPending}
            onClick={() => publish.mutate({ workflowId, bump, notes, draftRevision })}
          >
            {publish.isPending ? <span className="spinner" aria-hidden /> : null} Publish v
            {preview(bump)}
          </button>
        </>
      }
    >
      <div className="stack">
        <p style={{ margin: 0 }} className="muted">
          {currentVersion
            ? `Current version: v${currentVersion}. `
            : "This will be the first version. "}
          New runs use the published version; running ones keep theirs.
        </p>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }} disabled={!currentVersion}>
          <legend style={{ fontWeight: 560, fontSize: 13 }}>Change size</legend>
          {(["patch", "minor", "major"] as const).map((b) => (
            <label key={b} className="row" style={{ fontWeight: 400 }}>
              <input
                type="radio"
                name="bump"
                value={b}
                checked={bump === b}
                onChange={() => setBump(b)}
              />{" "}
              {b} → v{preview(b)}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor="publish-notes">Notes</label>
          <textarea
            id="publish-notes"
            rows={3}
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
            placeholder="What changed and why"
            style={{ fontFamily: "inherit" }}
          />
        </div>
        {warnings.length ? (
          <section className="callout callout-warn" aria-label="Warnings">
            <strong>
              {warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`}: publishing is
              allowed, but check {warnings.length === 1 ? "it" : "them"} first.
            </strong>
            <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
              {warnings.slice(0, 10).map((w, n) => (
                <li key={n}>{w.message}</li>
              ))}
            </ul>
            {warnings.length > 10 ? (
              <div className="small muted">…and {warnings.length - 10} more in Problems.</div>
            ) : null}
          </section>
        ) : null}
        {publish.error ? (
          <div className="form-error" role="alert">
            {publish.error.message}
            {issues && issues.length > 1 ? (
              <ul>
                {issues.slice(0, 10).map((i, n) => (
                  <li key={n}>{i.message}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}

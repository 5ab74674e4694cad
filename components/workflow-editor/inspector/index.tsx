"use client";
import { useQuery } from "@tanstack/react-query";
import type { JSX } from "react";
import type { EditorIssue } from "@/components/workflows/issue-list";
import { useTRPC } from "@/lib/trpc/client";
import { EdgePanel } from "./edge-panel";
import { StepPanel } from "./step-panel";
import { WorkflowPanel } from "./workflow-panel";
import styles from "./inspector.module.css";

export type InspectorSelection =
  | { kind: "none" }
  | { kind: "step"; id: string } // step ids are unique across all levels (loop bodies included)
  | { kind: "edge"; from: string; port: string; to: string }; // within the level holding `from`

export interface InspectorProps {
  /** The parsed draft (authoring shape: what the person wrote, defaults omitted). */
  definition: Record<string, unknown>;
  selection: InspectorSelection;
  issues: EditorIssue[];
  readOnly: boolean;
  /**
   * Replace the definition, or update the latest one (field edits: a value computed from this
   * render's `definition` could drop an edit not rendered yet); `key` coalesces rapid edits of
   * one field into one undo step.
   */
  onChange(
    next: Record<string, unknown> | ((latest: Record<string, unknown>) => Record<string, unknown>),
    opts?: { key?: string },
  ): void;
  /** Select something else (e.g. after renaming a step id). */
  onSelect(selection: InspectorSelection): void;
}

/**
 * The editor's right panel: the selected step (its config form generated from the step type's
 * schema, the `when` builder, retry and timeout), the selected edge (port, failure policy), or
 * the workflow itself. Every edit changes only the field edited (lib/workflow/edit-ops/fields.ts).
 */
export function Inspector(props: InspectorProps): JSX.Element {
  const trpc = useTRPC();
  // Secret names for `{{ secrets.NAME }}` completion: editors may list them; without the
  // permission (or on error) completion simply offers no secrets.
  const secrets = useQuery({
    ...trpc.secret.list.queryOptions(),
    enabled: !props.readOnly,
    retry: false,
    staleTime: 60_000,
  });
  const secretNames = secrets.data?.map((s) => s.name) ?? [];
  const { selection, ...rest } = props;
  return (
    <aside className={styles.inspector} aria-label="Inspector">
      {selection.kind === "step" ? (
        <StepPanel key={selection.id} {...rest} id={selection.id} secrets={secretNames} />
      ) : selection.kind === "edge" ? (
        <EdgePanel
          key={`${selection.from}-${selection.port}-${selection.to}`}
          {...rest}
          edge={selection}
        />
      ) : (
        <WorkflowPanel {...rest} />
      )}
    </aside>
  );
}

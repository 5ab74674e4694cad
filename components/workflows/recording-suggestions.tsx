"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Draft } from "@/components/workflow-editor/use-draft";
import { useTRPC } from "@/lib/trpc/client";
import {
  applySuggestion,
  liveSuggestions,
  type ReferenceSuggestion,
} from "@/lib/workflow/recording";

const pathText = (s: ReferenceSuggestion) =>
  s.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("");

/**
 * After an agent recorded this workflow (MCP recording mode), literal values in its steps that
 * equal an earlier step's output are offered as references: each is confirmed (or left) here and
 * applied to the draft as one undoable edit. Nothing shows for workflows never recorded.
 */
export function RecordingSuggestions({
  workflowId,
  draft,
  readOnly,
}: {
  workflowId: string;
  draft: Draft;
  readOnly: boolean;
}) {
  const trpc = useTRPC();
  const [hidden, setHidden] = useState(false);
  const query = useQuery({
    ...trpc.recording.suggestions.queryOptions({ workflowId }),
    enabled: !readOnly,
    staleTime: 60_000,
  });
  const definition = draft.parsed.ok ? draft.parsed.definition : null;
  const live = definition && query.data ? liveSuggestions(definition, query.data.suggestions) : [];
  if (readOnly || hidden || live.length === 0) return null;
  const apply = (list: ReferenceSuggestion[]) =>
    draft.setDefinition((latest) => list.reduce((d, s) => applySuggestion(d, s), latest));
  return (
    <section className="callout" aria-label="Suggested references">
      <p>
        An agent recorded this workflow. {live.length === 1 ? "One value" : `${live.length} values`}{" "}
        in its steps {live.length === 1 ? "equals" : "equal"} an earlier step&apos;s output: use a
        reference instead, so the workflow passes the value along rather than repeating it?
      </p>
      <ul className="stack" style={{ listStyle: "none", padding: 0 }}>
        {live.map((s) => (
          <li key={`${s.stepId}${pathText(s)}`} className="row">
            <code>
              {s.stepId}
              {pathText(s)}
            </code>{" "}
            = <code>{JSON.stringify(s.value)}</code> → <code>{s.reference}</code>
            <button type="button" className="btn btn-sm" onClick={() => apply([s])}>
              Use reference
            </button>
          </li>
        ))}
      </ul>
      <div className="row">
        {live.length > 1 ? (
          <button type="button" className="btn btn-sm btn-primary" onClick={() => apply(live)}>
            Use all {live.length}
          </button>
        ) : null}
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => setHidden(true)}>
          Dismiss
        </button>
      </div>
    </section>
  );
}

"use client";
import { useMemo, useState } from "react";
import { summarizeChange } from "@/lib/workflow/change-summary";
import { ChangeSummaryList, type ChangeSummaryLine } from "./change-summary-list";
import { GraphDiffCanvas } from "./graph-diff-canvas";
import { buildDiffGraph } from "./graph-diff-model";
import { JsonDiff } from "./json-diff";
import { StepDiffPanel } from "./step-diff-panel";
import styles from "./diff.module.css";
import type { ReplayStepVerdict } from "@/lib/workflow/dry-run-types";

/**
 * Everything a reviewer reads about a change between two definitions: the change summary, the
 * graph diff with the selected step's config diff beside it, and the canonical JSON diff. Used by
 * the proposal review screen and the Versions tab's compare.
 */
export function DefinitionDiffView({
  before,
  after,
  beforeLabel,
  afterLabel,
  changeSummary,
  idPrefix = "diff",
  verdicts,
}: {
  before: unknown;
  after: unknown;
  beforeLabel: string;
  afterLabel: string;
  /** The server's summary lines; computed here from the diff when omitted. */
  changeSummary?: readonly ChangeSummaryLine[];
  /** Prefix of heading ids, unique per page. */
  idPrefix?: string;
  /** A proposal replay's verdict per step (issue #29), shown on the canvas nodes. */
  verdicts?: Readonly<Record<string, ReplayStepVerdict>>;
}) {
  const [selected, setSelected] = useState<string | null>(null);
  const model = useMemo(() => {
    try {
      return buildDiffGraph(before, after);
    } catch {
      // GraphDiffCanvas shows why; the summary falls back to the server's lines or nothing.
      return null;
    }
  }, [before, after]);
  const lines = useMemo(
    () => changeSummary ?? (model ? summarizeChange(model.diff) : []),
    [changeSummary, model],
  );
  const stepIds = useMemo(() => new Set(model?.layout.steps.map((s) => s.id) ?? []), [model]);
  return (
    <div className="stack">
      <section aria-labelledby={`${idPrefix}-summary-h`}>
        <h3 id={`${idPrefix}-summary-h`}>
          What changes ({beforeLabel} → {afterLabel})
        </h3>
        <ChangeSummaryList lines={lines} onSelectStep={setSelected} stepIds={stepIds} />
      </section>
      <section aria-labelledby={`${idPrefix}-graph-h`}>
        <h3 id={`${idPrefix}-graph-h`}>Graph</h3>
        <div className={styles.compare}>
          <GraphDiffCanvas
            before={before}
            after={after}
            selected={selected}
            onSelect={setSelected}
            verdicts={verdicts}
          />
          {model ? (
            <StepDiffPanel before={before} after={after} diff={model.diff} stepId={selected} />
          ) : null}
        </div>
      </section>
      <section aria-labelledby={`${idPrefix}-json-h`}>
        <h3 id={`${idPrefix}-json-h`}>JSON</h3>
        <JsonDiff before={before} after={after} beforeLabel={beforeLabel} afterLabel={afterLabel} />
      </section>
    </div>
  );
}

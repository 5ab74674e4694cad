"use client";
import { LIVE_TICK_MS, useNow } from "@/components/ui/time";
import {
  approvalDecisionWords,
  closedGateWords,
  decisionSentence,
  taskWords,
  type DecisionWords,
} from "./decision-wording";

type When = Date | string | null;
export type RunDecisionView =
  | {
      kind: "approval";
      id: string;
      stepPath: string;
      prompt: string;
      status: string;
      decidedAt: When;
      reason: string | null;
      decisions: {
        decision: string;
        reason: string;
        at: When;
        via: string;
        byName: string | null;
      }[];
    }
  | {
      kind: "task";
      id: string;
      stepPath: string;
      instructions: string;
      status: string;
      finishedAt: When;
      byName: string | null;
      reason: string | null;
      via: string | null;
    };

const toDate = (d: When) => (d ? new Date(d) : null);

/** Approvals and tasks in words: who decided (by name), when (relative; absolute on hover), why. */
export function RunDecisions({
  decisions,
  onSelect,
}: {
  decisions: readonly RunDecisionView[];
  onSelect: (path: string) => void;
}) {
  if (!decisions.length) return null;
  return (
    <section className="card" aria-labelledby="decisions-h">
      <div className="card-head">
        <h2 id="decisions-h">Decisions</h2>
      </div>
      <ul className="card-body stack" style={{ listStyle: "none", margin: 0 }}>
        {decisions.map((d) => (
          <li key={d.id} className="stack" style={{ gap: 2 }}>
            <div className="small muted">
              {d.kind === "approval" ? "Approval" : "Task"}{" "}
              <button type="button" className="btn-link mono" onClick={() => onSelect(d.stepPath)}>
                {d.stepPath}
              </button>
              : {d.kind === "approval" ? d.prompt : d.instructions}
            </div>
            {d.kind === "approval" ? (
              d.decisions.length ? (
                d.decisions.map((x, i) => (
                  <Sentence key={i} words={approvalDecisionWords(x)} at={toDate(x.at)} />
                ))
              ) : (
                <Sentence
                  words={
                    closedGateWords(d.status, d.reason) ?? { verb: d.status, by: "", reason: "" }
                  }
                  at={toDate(d.decidedAt)}
                />
              )
            ) : (
              <Sentence words={taskWords(d)} at={toDate(d.finishedAt)} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Sentence({ words, at }: { words: DecisionWords; at: Date | null }) {
  const now = useNow(LIVE_TICK_MS);
  // Before hydration the relative part is left out (it depends on the clock).
  const text = decisionSentence(words, now === null ? null : at, now ?? 0);
  return (
    <p style={{ margin: 0 }} title={at ? at.toUTCString() : undefined}>
      {at ? (
        <time dateTime={at.toISOString()} title={at.toLocaleString()}>
          {text}
        </time>
      ) : (
        text
      )}
    </p>
  );
}

/** Approvals and tasks told in words ("Approved by Bob Smith 3 minutes ago — “looks fine”"). */
import { relative } from "@/components/ui/time";

export interface DecisionWords {
  /** "Approved by", "Rejected by", "Completed by", "Failed by", "Expired", … */
  verb: string;
  /** The decider's display name; "a former member" when they left the workspace; "" for none. */
  by: string;
  reason: string;
}

const FORMER = "a former member";

/** One person's decision on an approval gate. */
export function approvalDecisionWords(d: {
  decision: string;
  reason: string;
  byName: string | null;
}): DecisionWords {
  const verb = d.decision === "approved" ? "Approved by" : "Rejected by";
  return { verb, by: d.byName ?? FORMER, reason: d.reason.trim() };
}

/** A gate that closed without a person's decision (expired or cancelled with the run). */
export function closedGateWords(status: string, reason: string | null): DecisionWords | null {
  if (status === "expired" || reason === "approval_timeout")
    return { verb: "Expired without a decision", by: "", reason: "" };
  if (status === "cancelled") return { verb: "Cancelled with the run", by: "", reason: "" };
  return null;
}

/** A finished task: who completed or failed it, or why no one did. */
export function taskWords(t: {
  status: string;
  byName: string | null;
  reason: string | null;
}): DecisionWords {
  switch (t.status) {
    case "completed":
      return { verb: "Completed by", by: t.byName ?? FORMER, reason: "" };
    case "failed":
      return { verb: "Failed by", by: t.byName ?? FORMER, reason: (t.reason ?? "").trim() };
    case "expired":
      return { verb: "Expired before anyone finished it", by: "", reason: "" };
    default:
      return { verb: "Cancelled with the run", by: "", reason: "" };
  }
}

/** The whole sentence, as read aloud and as tested. */
export function decisionSentence(w: DecisionWords, at: Date | null, now: number): string {
  const who = w.by ? ` ${w.by}` : "";
  const when = at ? ` ${relative(at, now)}` : "";
  const why = w.reason ? ` — “${w.reason}”` : "";
  return `${w.verb}${who}${when}${why}`;
}

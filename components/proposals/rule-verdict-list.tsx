import type { RuleVerdict } from "@/lib/schemas/proposal-rules";

const EFFECT_WORDS: Record<RuleVerdict["effect"], string> = {
  refuse: "refuses",
  require_admin_review: "needs an admin review",
  warn: "warns",
};

/** The workspace's proposal rules on this change: which fired, and what each asks for. */
export function RuleVerdictList({ verdicts }: { verdicts: readonly RuleVerdict[] }) {
  if (verdicts.length === 0)
    return (
      <p className="small muted" style={{ margin: 0 }}>
        The workspace has no proposal rules.
      </p>
    );
  return (
    <ul
      className="stack"
      style={{ margin: 0, paddingLeft: 0, listStyle: "none" }}
      aria-label="Rule verdicts"
    >
      {verdicts.map((v) => (
        <li key={v.rule}>
          <strong>{v.rule}</strong>{" "}
          {v.fired ? (
            <span className={v.effect === "warn" ? "badge badge-warn" : "badge badge-danger"}>
              {EFFECT_WORDS[v.effect]}
            </span>
          ) : (
            <span className="badge badge-ok">does not apply</span>
          )}
          {v.fired && v.message && v.message !== v.rule ? `: ${v.message}` : null}
          {v.error ? (
            <span className="small faint"> (could not be evaluated: {v.error})</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

import { riskRuleOf, stepIdsOf } from "./proposal-format";
import { RiskBadge } from "./proposal-badges";

interface ReasonLike {
  level: string;
  message: string;
}
interface VerdictLike {
  policy: string;
  ok: boolean;
  blocking: boolean;
  message: string;
}

/** Why the change got its risk level, one reason per line, with the steps it concerns. */
export function RiskReasons({ reasons }: { reasons: readonly ReasonLike[] }) {
  if (reasons.length === 0)
    return (
      <p className="small muted" style={{ margin: 0 }}>
        Nothing in this change raises its risk.
      </p>
    );
  return (
    <ul className="stack" style={{ margin: 0, paddingLeft: 18 }} aria-label="Risk reasons">
      {reasons.map((r, i) => {
        const steps = stepIdsOf(r);
        const rule = riskRuleOf(r);
        return (
          <li key={i}>
            <RiskBadge risk={r.level} /> {r.message}
            {steps.length ? <span className="mono small faint"> ({steps.join(", ")})</span> : null}
            {rule ? <span className="small faint"> · {rule}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** One line per workspace policy; failing blocking ones are red and stop apply. */
export function PolicyVerdicts({ verdicts }: { verdicts: readonly VerdictLike[] }) {
  if (verdicts.length === 0)
    return (
      <p className="small muted" style={{ margin: 0 }}>
        No policies were checked.
      </p>
    );
  return (
    <ul
      className="stack"
      style={{ margin: 0, paddingLeft: 0, listStyle: "none" }}
      aria-label="Policy verdicts"
    >
      {verdicts.map((v, i) => {
        const steps = stepIdsOf(v);
        const tone = v.ok
          ? "badge badge-ok"
          : v.blocking
            ? "badge badge-danger"
            : "badge badge-warn";
        // "ok", not "passes": "passes approval gates" read as "gets past the approval gates".
        const label = v.ok ? "ok" : v.blocking ? "blocks" : "warns";
        return (
          <li
            key={i}
            style={!v.ok && v.blocking ? { color: "var(--danger)" } : undefined}
            data-blocking={!v.ok && v.blocking ? "true" : undefined}
          >
            <strong>{v.policy.replaceAll("_", " ")}</strong> <span className={tone}>{label}</span>:{" "}
            {v.message}
            {steps.length ? <span className="mono small"> ({steps.join(", ")})</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

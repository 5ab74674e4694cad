import { conditionChecksOf, formatCheck } from "./format";

/** A condition step's comparisons with their resolved operands (`input.amount: 250 > 100 → true`). */
export function ConditionChecks({ output }: { output: unknown }) {
  const checks = conditionChecksOf(output);
  if (!checks?.length) return null;
  const omitted = (output as { meta?: { omittedChecks?: unknown } }).meta?.omittedChecks;
  return (
    <section aria-label="Evaluated conditions">
      <div className="small muted">Evaluated</div>
      <ul className="mono small" style={{ margin: 0, paddingLeft: 18 }}>
        {checks.map((c, i) => (
          <li key={i}>{formatCheck(c)}</li>
        ))}
      </ul>
      {typeof omitted === "number" && omitted > 0 ? (
        <div className="small muted">…and {omitted} more not recorded.</div>
      ) : null}
    </section>
  );
}

"use client";
import { JsonDiff } from "@/components/diff/json-diff";

interface Side {
  version?: string;
  definition: unknown;
}

/**
 * When the workflow moved on since the proposal was written: what others changed (base →
 * current) beside what this proposal changes (base → proposed), so the reviewer can see whether
 * the two overlap before asking for a rebase.
 */
export function ThreeWayView({
  base,
  current,
  proposed,
}: {
  base: Side;
  current: Side;
  proposed: Side;
}) {
  return (
    <div
      style={{
        display: "grid",
        gridTemplateColumns: "repeat(auto-fit, minmax(420px, 1fr))",
        gap: 12,
      }}
    >
      <section aria-label="Published since the base">
        <h4 style={{ margin: "0 0 6px" }}>
          Published since: v{base.version} → v{current.version}
        </h4>
        <JsonDiff
          before={base.definition}
          after={current.definition}
          beforeLabel={`v${base.version} (base)`}
          afterLabel={`v${current.version} (current)`}
          height="45vh"
        />
      </section>
      <section aria-label="This proposal">
        <h4 style={{ margin: "0 0 6px" }}>This proposal: v{base.version} → proposed</h4>
        <JsonDiff
          before={base.definition}
          after={proposed.definition}
          beforeLabel={`v${base.version} (base)`}
          afterLabel="proposed"
          height="45vh"
        />
      </section>
    </div>
  );
}

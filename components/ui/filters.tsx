import type { ReactNode } from "react";

/** One labelled control in a list's filter bar (runs, audit log). */
export function FilterField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="stack" style={{ gap: 2 }}>
      <span className="small muted">{label}</span>
      {children}
    </label>
  );
}

/** From / To date filters (yyyy-mm-dd; empty means open-ended). */
export function DateRangeFilters({
  from,
  to,
  onChange,
}: {
  from?: string;
  to?: string;
  onChange: (range: { from?: string; to?: string }) => void;
}) {
  return (
    <>
      <FilterField label="From">
        <input
          type="date"
          value={from ?? ""}
          onChange={(e) => onChange({ from: e.target.value || undefined })}
          style={{ width: 150 }}
        />
      </FilterField>
      <FilterField label="To">
        <input
          type="date"
          value={to ?? ""}
          onChange={(e) => onChange({ to: e.target.value || undefined })}
          style={{ width: 150 }}
        />
      </FilterField>
    </>
  );
}

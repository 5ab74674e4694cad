"use client";
import type { ReactNode } from "react";
import { mapIssues, type IssueLike } from "@/components/forms/issues";
import type { IntegrationTestResult } from "@/lib/schemas/workspace";

/** Pieces shared by the integration forms (LLM, SMTP, MCP servers). */

export type Errors = Record<string, string>;

/** A form's issues on its fields (the form layer's one adapter; deeper paths fold onto them). */
export const fieldErrors = (issues: readonly IssueLike[], fields: object): Errors =>
  mapIssues(issues, { fields: Object.keys(fields) }).byField;

export function SecretSelect({
  value,
  onChange,
  names,
  disabled,
  ...aria
}: {
  value: string;
  onChange: (v: string) => void;
  names: string[];
  disabled: boolean;
  id: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  const options = value && !names.includes(value) ? [value, ...names] : names;
  return (
    <select {...aria} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
      <option value="">None</option>
      {options.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}

export function TestResult({ result, error }: { result?: IntegrationTestResult; error?: string }) {
  if (error) {
    return (
      <div className="form-error" role="alert">
        {error}
      </div>
    );
  }
  if (!result) return null;
  return result.ok ? (
    <div className="form-ok" role="status">
      Connection works — {result.message}
    </div>
  ) : (
    <div className="form-error" role="alert">
      Connection failed after {result.durationMs} ms: {result.message}
    </div>
  );
}

export function Card({
  id,
  title,
  badge,
  children,
}: {
  id: string;
  title: string;
  badge: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-head">
        <h2 id={id}>{title}</h2>
        {badge}
      </div>
      <div className="card-body">{children}</div>
    </section>
  );
}

export const configured = (on: boolean) =>
  on ? (
    <span className="badge badge-ok">Configured</span>
  ) : (
    <span className="badge">Not configured</span>
  );

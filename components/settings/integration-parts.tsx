"use client";
import type { ReactNode } from "react";
import { mapIssues, type IssueLike } from "@/components/forms/issues";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
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

/**
 * A single-record integration's form (LLM endpoint, SMTP): its fields, then — for admins — Save,
 * Test connection (with the unsaved values) and Remove (once something is saved), and the
 * outcome of the last save and test.
 */
export function IntegrationForm({
  id,
  title,
  saved,
  dirty,
  isAdmin,
  note,
  onSave,
  onTest,
  onRemove,
  saving,
  testing,
  saveError,
  testResult,
  testError,
  children,
}: {
  id: string;
  title: string;
  saved: boolean;
  /** The fields differ from what is saved (shown, and leaving the page asks first). */
  dirty: boolean;
  isAdmin: boolean;
  note: ReactNode;
  onSave: () => void;
  onTest: () => void;
  onRemove: () => void;
  saving: boolean;
  testing: boolean;
  saveError?: string;
  testResult?: IntegrationTestResult;
  testError?: string;
  children: ReactNode;
}) {
  return (
    <Card id={id} title={title} badge={configured(saved)}>
      <form
        className="form"
        style={{ maxWidth: 640 }}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          onSave();
        }}
      >
        <p className="section-note">{note}</p>
        {children}
        {isAdmin ? (
          <div className="row">
            <button className="btn btn-primary" type="submit" disabled={saving}>
              {saving ? <span className="spinner" aria-hidden /> : null}
              Save
            </button>
            <button type="button" className="btn" disabled={testing} onClick={onTest}>
              {testing ? <span className="spinner" aria-hidden /> : null}
              Test connection
            </button>
            {saved ? (
              <button type="button" className="btn btn-danger" disabled={saving} onClick={onRemove}>
                Remove
              </button>
            ) : null}
            <UnsavedBadge dirty={dirty} />
          </div>
        ) : null}
        <UnsavedChangesGuard dirty={isAdmin && dirty} what={`${title} settings`} />
        {saveError ? (
          <div className="form-error" role="alert">
            {saveError}
          </div>
        ) : null}
        <TestResult result={testResult} error={testError} />
      </form>
    </Card>
  );
}

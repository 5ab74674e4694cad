"use client";
import { useId, type ReactNode } from "react";
import { CheckboxField, JsonField, NumberField, SelectField, TextField } from "./fields";
import { hintOf, listText, parseListText, valueAt, type FieldSpec } from "./schema-fields";
import styles from "./forms.module.css";

export interface TextRenderProps {
  label: string;
  hint?: string;
  error?: string;
  value: string;
  onChange: (text: string) => void;
  multiline: boolean;
  placeholder?: string;
  disabled?: boolean;
}

/**
 * Fields generated from a schema's field descriptions (schema-fields.ts) over one object:
 * each field reads its value at its path and reports `onChange(path, value)`, `undefined`
 * meaning "remove the key" (the schema's default then applies). `errors` are keyed by dotted
 * path, as the issue adapter produces them.
 */
export function SchemaFields({
  fields,
  value,
  onChange,
  errors = {},
  disabled,
  renderText,
  renderCondition,
}: {
  fields: readonly FieldSpec[];
  value: unknown;
  onChange: (path: readonly string[], value: unknown) => void;
  errors?: Readonly<Record<string, string>>;
  disabled?: boolean;
  /** Replaces the plain text input (e.g. with template completion). */
  renderText?: (spec: FieldSpec, props: TextRenderProps) => ReactNode;
  renderCondition?: (spec: FieldSpec) => ReactNode;
}) {
  return (
    <>
      {fields.map((spec) => (
        <SchemaField
          key={spec.path.join(".")}
          spec={spec}
          value={value}
          onChange={onChange}
          errors={errors}
          disabled={disabled}
          renderText={renderText}
          renderCondition={renderCondition}
        />
      ))}
    </>
  );
}

function errorAt(errors: Readonly<Record<string, string>>, key: string, deep: boolean) {
  if (errors[key]) return errors[key];
  if (!deep) return undefined;
  const below = Object.keys(errors).find((k) => k.startsWith(`${key}.`));
  return below ? errors[below] : undefined;
}

function SchemaField({
  spec,
  value: root,
  onChange,
  errors,
  disabled,
  renderText,
  renderCondition,
}: {
  spec: FieldSpec;
  value: unknown;
  onChange: (path: readonly string[], value: unknown) => void;
  errors: Readonly<Record<string, string>>;
  disabled?: boolean;
  renderText?: (spec: FieldSpec, props: TextRenderProps) => ReactNode;
  renderCondition?: (spec: FieldSpec) => ReactNode;
}) {
  const groupId = useId();
  const key = spec.path.join(".");
  const value = valueAt(root, spec.path);
  const set = (next: unknown) => onChange(spec.path, next);
  const label = spec.required ? `${spec.label} (required)` : spec.label;
  const hint = hintOf(spec);
  const common = { label, hint, disabled, error: errorAt(errors, key, spec.kind !== "object") };
  switch (spec.kind) {
    case "text": {
      const props: TextRenderProps = {
        ...common,
        value: typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value),
        onChange: (text) => set(text === "" && !spec.required ? undefined : text),
        multiline: spec.multiline,
        placeholder: typeof spec.default === "string" ? spec.default : undefined,
      };
      return renderText ? renderText(spec, props) : <TextField {...props} rows={4} />;
    }
    case "number":
      return (
        <NumberField
          {...common}
          value={typeof value === "number" ? value : undefined}
          onChange={set}
          min={spec.min}
          max={spec.max}
          step={spec.integer ? 1 : "any"}
          placeholder={typeof spec.default === "number" ? String(spec.default) : undefined}
        />
      );
    case "boolean":
      return (
        <CheckboxField
          {...common}
          checked={typeof value === "boolean" ? value : spec.default === true}
          onChange={set}
        />
      );
    case "select": {
      const empty = spec.required
        ? []
        : [["", spec.default !== undefined ? `Default (${String(spec.default)})` : "—"] as const];
      return (
        <SelectField
          {...common}
          value={typeof value === "string" ? value : ""}
          onChange={(v) => set(v === "" ? undefined : v)}
          options={[...empty, ...spec.options.map((o) => [o, o] as const)]}
        />
      );
    }
    case "multiselect": {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className={styles.group} aria-describedby={hint ? `${groupId}-hint` : undefined}>
          <legend>{label}</legend>
          <div className={styles.checks}>
            {spec.options.map((option) => (
              <label key={option} className={styles.check}>
                <input
                  type="checkbox"
                  disabled={disabled}
                  checked={chosen.includes(option)}
                  onChange={(e) => {
                    const next = e.target.checked
                      ? spec.options.filter((o) => o === option || chosen.includes(o))
                      : chosen.filter((o) => o !== option);
                    set(next.length ? next : undefined);
                  }}
                />
                {option}
              </label>
            ))}
          </div>
          {hint ? (
            <div id={`${groupId}-hint`} className="hint">
              {hint}
            </div>
          ) : null}
          {common.error ? <div className="error">{common.error}</div> : null}
        </fieldset>
      );
    }
    case "list":
      return (
        <TextField
          {...common}
          hint={[hint, "One per line."].filter(Boolean).join(" ")}
          multiline
          rows={3}
          value={listText(value)}
          onChange={(text) => set(parseListText(text))}
        />
      );
    case "object":
      return (
        <fieldset className={styles.group}>
          <legend>{label}</legend>
          {spec.description ? <p className="section-note">{spec.description}</p> : null}
          {common.error ? <div className="error">{common.error}</div> : null}
          <SchemaFields
            fields={spec.fields}
            value={root}
            onChange={onChange}
            errors={errors}
            disabled={disabled}
            renderText={renderText}
            renderCondition={renderCondition}
          />
        </fieldset>
      );
    case "condition":
      return renderCondition ? (
        <>{renderCondition(spec)}</>
      ) : (
        <JsonField {...common} value={value} onChange={set} />
      );
    case "json":
      return <JsonField {...common} value={value} onChange={set} />;
  }
}

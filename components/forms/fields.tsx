"use client";
import { useState, type ReactNode, type Ref } from "react";
import { Field } from "@/components/ui/field";
import { jsonText, parseJsonText } from "./json-text";

/**
 * Controlled field components: a typed value in, a typed value out, the label, hint and error
 * wired up by `components/ui/field.tsx`. The react-hook-form bindings (form.tsx) and the
 * inspector (which edits the definition directly) both render these, so every form looks and
 * reads the same to a screen reader.
 */

interface Common {
  label: string;
  hint?: ReactNode;
  error?: string;
  disabled?: boolean;
  onBlur?: () => void;
}

export function TextField({
  value,
  onChange,
  multiline,
  rows,
  list,
  placeholder,
  mono,
  spellCheck,
  autoFocus,
  inputRef,
  name,
  type = "text",
  autoComplete,
  inputMode,
  maxLength,
  readOnly,
  ...common
}: Common & {
  value: string;
  onChange: (value: string) => void;
  /** A textarea instead of an input. */
  multiline?: boolean;
  rows?: number;
  /** Id of a <datalist> with completions (inputs only). */
  list?: string;
  placeholder?: string;
  mono?: boolean;
  spellCheck?: boolean;
  autoFocus?: boolean;
  name?: string;
  inputRef?: Ref<HTMLInputElement & HTMLTextAreaElement>;
  /** The input's type (inputs only): text, or e.g. password/email for the browser's help. */
  type?: "text" | "password" | "email" | "url" | "search";
  autoComplete?: string;
  inputMode?: "text" | "numeric" | "email" | "url";
  maxLength?: number;
  readOnly?: boolean;
}) {
  const shared = {
    name,
    value,
    placeholder,
    spellCheck,
    autoFocus,
    maxLength,
    readOnly,
    disabled: common.disabled,
    onBlur: common.onBlur,
    className: mono ? "mono" : undefined,
    ref: inputRef,
  };
  return (
    <Field
      label={common.label}
      hint={common.hint}
      error={common.error}
      render={(p) =>
        multiline ? (
          <textarea {...p} {...shared} rows={rows} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input
            {...p}
            {...shared}
            type={type}
            autoComplete={autoComplete}
            inputMode={inputMode}
            list={list}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    />
  );
}

/** A number typed as text and handed out as a number; blank is `undefined` ("use the default"). */
export function NumberField({
  value,
  onChange,
  min,
  max,
  step,
  placeholder,
  name,
  ...common
}: Common & {
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  min?: number;
  max?: number;
  step?: number | "any";
  placeholder?: string;
  name?: string;
}) {
  // Keeps what was typed ("1." or "-") while it is not yet a number.
  const [draft, setDraft] = useState<{ text: string; for: number | undefined } | null>(null);
  const text = draft && draft.for === value ? draft.text : value === undefined ? "" : String(value);
  return (
    <Field
      label={common.label}
      hint={common.hint}
      error={common.error}
      render={(p) => (
        <input
          {...p}
          name={name}
          type="number"
          inputMode="decimal"
          min={min}
          max={max}
          step={step}
          placeholder={placeholder}
          disabled={common.disabled}
          onBlur={() => {
            setDraft(null);
            common.onBlur?.();
          }}
          value={text}
          onChange={(e) => {
            const raw = e.target.value;
            const next = raw.trim() === "" ? undefined : Number(raw);
            if (next !== undefined && !Number.isFinite(next)) {
              setDraft({ text: raw, for: value });
              return;
            }
            setDraft({ text: raw, for: next });
            onChange(next);
          }}
        />
      )}
    />
  );
}

export type SelectOptions = readonly (readonly [value: string, label: string])[];

export function SelectField({
  value,
  onChange,
  options,
  name,
  ...common
}: Common & {
  value: string;
  onChange: (value: string) => void;
  options: SelectOptions;
  name?: string;
}) {
  return (
    <Field
      label={common.label}
      hint={common.hint}
      error={common.error}
      render={(p) => (
        <select
          {...p}
          name={name}
          value={value}
          disabled={common.disabled}
          onBlur={common.onBlur}
          onChange={(e) => onChange(e.target.value)}
        >
          {options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    />
  );
}

export function CheckboxField({
  checked,
  onChange,
  label,
  hint,
  error,
  disabled,
}: Common & { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <Field
      label={label}
      hint={hint}
      error={error}
      render={(p) => (
        <input
          {...p}
          type="checkbox"
          className="checkbox"
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
        />
      )}
    />
  );
}

/**
 * A small JSON textarea for free-form values. The text is kept while it does not parse (the
 * error says why); every parsable edit is handed out, blank as `undefined`.
 */
export function JsonField({
  value,
  onChange,
  placeholder,
  rows = 3,
  ...common
}: Common & {
  value: unknown;
  onChange: (value: unknown) => void;
  placeholder?: string;
  rows?: number;
}) {
  const shown = jsonText(value);
  const [draft, setDraft] = useState<{ text: string; for: string; error: string } | null>(null);
  const current = draft && draft.for === shown ? draft : null;
  return (
    <Field
      label={common.label}
      hint={common.hint}
      error={current?.error || common.error}
      render={(p) => (
        <textarea
          {...p}
          className="mono"
          rows={rows}
          spellCheck={false}
          placeholder={placeholder}
          disabled={common.disabled}
          value={current?.text ?? shown}
          onBlur={common.onBlur}
          onChange={(e) => {
            const text = e.target.value;
            const parsed = parseJsonText(text);
            if (!parsed.ok) return setDraft({ text, for: shown, error: parsed.error });
            const next = jsonText(parsed.value);
            setDraft({ text, for: next, error: "" });
            onChange(parsed.value);
          }}
        />
      )}
    />
  );
}

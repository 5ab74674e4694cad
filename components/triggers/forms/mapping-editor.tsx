"use client";
import { useController } from "react-hook-form";
import { Field } from "@/components/ui/field";
import type { InputSpec } from "@/lib/workflow/definition";
import type { TriggerControl } from "./values";

/** "version (required)", "env (default "staging")", "note (optional)". */
export function targetLabel(name: string, spec: Pick<InputSpec, "required" | "default">): string {
  if (spec.default !== undefined) return `${name} (default ${JSON.stringify(spec.default)})`;
  return `${name} (${spec.required ? "required" : "optional"})`;
}

/**
 * Rows of "run input ← request/event value" (webhooks and events share it). With the workflow's
 * declared `inputs` the input name is picked from them; an optional or defaulted input whose
 * source is absent is left to its default, a required one without a default refuses the delivery.
 */
export function MappingEditor({
  control,
  sourceHint,
  inputs,
  suggestSource,
}: {
  control: TriggerControl;
  sourceHint: string;
  /** The source a "Map <input>" button fills in. */
  suggestSource: (input: string) => string;
  /** The current version's declared inputs; free text when unknown (nothing published). */
  inputs?: Record<string, InputSpec>;
}) {
  const { field, fieldState } = useController({ control, name: "mapping" });
  const rows = field.value;
  const setRows = field.onChange;
  const setName = (i: number, name: string) =>
    setRows(rows.map((x, j) => (j === i ? { ...x, name } : x)));
  const declared = inputs ? Object.entries(inputs) : null;
  const unmapped = declared?.filter(([name]) => !rows.some((r) => r.name === name)) ?? [];
  return (
    <fieldset className="plain stack" style={{ gap: 6 }}>
      <legend>Input mapping</legend>
      <p className="section-note">
        {sourceHint} An optional input, or one with a default, may be absent from the request: its
        default applies.
      </p>
      {declared && declared.length === 0 ? (
        <p className="section-note">The published workflow declares no inputs.</p>
      ) : null}
      {rows.map((r, i) => (
        <div className="row" key={i} style={{ alignItems: "flex-end" }}>
          <div className="grow">
            {declared ? (
              <Field
                label={`Input name ${i + 1}`}
                render={(props) => (
                  <select {...props} value={r.name} onChange={(e) => setName(i, e.target.value)}>
                    <option value="">Choose an input…</option>
                    {declared.map(([name, spec]) => (
                      <option key={name} value={name}>
                        {targetLabel(name, spec)}
                      </option>
                    ))}
                    {r.name && !inputs![r.name] ? (
                      <option value={r.name}>{r.name} (not an input of the workflow)</option>
                    ) : null}
                  </select>
                )}
              />
            ) : (
              <Field
                label={`Input name ${i + 1}`}
                value={r.name}
                onChange={(e) => setName(i, e.target.value)}
                placeholder="orderId"
              />
            )}
          </div>
          <div className="grow">
            <Field
              label={`Source ${i + 1}`}
              value={r.source}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, source: e.target.value } : x)))
              }
              placeholder="$.order.id"
            />
          </div>
          <button
            type="button"
            className="btn btn-sm"
            aria-label={`Remove mapping ${i + 1}`}
            onClick={() => setRows(rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <div className="row" style={{ flexWrap: "wrap" }}>
        {declared ? (
          unmapped.map(([name]) => (
            <button
              key={name}
              type="button"
              className="btn btn-sm"
              onClick={() => setRows([...rows, { name, source: suggestSource(name) }])}
            >
              Map {name}
            </button>
          ))
        ) : (
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => setRows([...rows, { name: "", source: "" }])}
          >
            Add mapping
          </button>
        )}
      </div>
      {fieldState.error?.message ? (
        <div className="form-error" role="alert">
          {fieldState.error.message}
        </div>
      ) : null}
    </fieldset>
  );
}

"use client";
import { useController } from "react-hook-form";
import { Field } from "@/components/ui/field";
import type { TriggerControl } from "./values";

/** Rows of "run input ← request/event value" (webhooks and events share it). */
export function MappingEditor({
  control,
  sourceHint,
}: {
  control: TriggerControl;
  sourceHint: string;
}) {
  const { field, fieldState } = useController({ control, name: "mapping" });
  const rows = field.value;
  const setRows = field.onChange;
  return (
    <fieldset className="plain stack" style={{ gap: 6 }}>
      <legend>Input mapping</legend>
      <p className="section-note">{sourceHint}</p>
      {rows.map((r, i) => (
        <div className="row" key={i} style={{ alignItems: "flex-end" }}>
          <div className="grow">
            <Field
              label={`Input name ${i + 1}`}
              value={r.name}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))
              }
              placeholder="orderId"
            />
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
      <div>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setRows([...rows, { name: "", source: "" }])}
        >
          Add mapping
        </button>
      </div>
      {fieldState.error?.message ? (
        <div className="form-error" role="alert">
          {fieldState.error.message}
        </div>
      ) : null}
    </fieldset>
  );
}

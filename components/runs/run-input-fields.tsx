"use client";
import type { InputSpec } from "@/lib/workflow/definition";
import { Field } from "@/components/ui/field";
import { controlOf, type FormValues } from "./run-input-form";

/** One labelled control per workflow input, with description, default and field error. */
export function RunInputFields({
  inputs,
  values,
  errors,
  onChange,
}: {
  inputs: Readonly<Record<string, InputSpec>>;
  values: FormValues;
  errors: Readonly<Record<string, string>>;
  onChange: (name: string, value: string | boolean) => void;
}) {
  const entries = Object.entries(inputs);
  if (entries.length === 0) return <p className="muted">This workflow takes no inputs.</p>;
  return (
    <div className="stack">
      {entries.map(([name, spec]) => {
        const control = controlOf(spec);
        const label = `${name}${spec.required ? " *" : ""}`;
        const hint = [
          spec.description,
          `${spec.type}${spec.required ? ", required" : ""}`,
          spec.default !== undefined && control !== "checkbox"
            ? `default ${JSON.stringify(spec.default)}`
            : null,
        ]
          .filter(Boolean)
          .join(" · ");
        const v = values[name];
        if (control === "checkbox")
          return (
            <Field
              key={name}
              label={label}
              hint={hint}
              error={errors[name]}
              render={(p) => (
                <input
                  {...p}
                  type="checkbox"
                  name={name}
                  checked={v === true}
                  onChange={(e) => onChange(name, e.target.checked)}
                  style={{ width: "auto" }}
                />
              )}
            />
          );
        if (control === "select")
          return (
            <Field
              key={name}
              label={label}
              hint={hint}
              error={errors[name]}
              render={(p) => (
                <select
                  {...p}
                  name={name}
                  value={typeof v === "string" ? v : ""}
                  onChange={(e) => onChange(name, e.target.value)}
                >
                  <option value="">{spec.required ? "Choose…" : "(not set)"}</option>
                  {spec.enum!.map((opt, i) => (
                    <option key={i} value={String(i)}>
                      {typeof opt === "string" ? opt : JSON.stringify(opt)}
                    </option>
                  ))}
                </select>
              )}
            />
          );
        if (control === "json")
          return (
            <Field
              key={name}
              label={label}
              hint={`${hint} · JSON`}
              error={errors[name]}
              render={(p) => (
                <textarea
                  {...p}
                  name={name}
                  className="mono"
                  rows={5}
                  spellCheck={false}
                  placeholder={spec.type === "array" ? "[ ]" : "{ }"}
                  value={typeof v === "string" ? v : ""}
                  onChange={(e) => onChange(name, e.target.value)}
                />
              )}
            />
          );
        return (
          <Field
            key={name}
            label={label}
            hint={hint}
            error={errors[name]}
            name={name}
            type="text"
            inputMode={control === "number" ? "decimal" : undefined}
            value={typeof v === "string" ? v : ""}
            onChange={(e) => onChange(name, e.target.value)}
          />
        );
      })}
    </div>
  );
}

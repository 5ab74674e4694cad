import { useId, type InputHTMLAttributes, type ReactNode } from "react";

type ControlProps = { id: string; "aria-invalid"?: boolean; "aria-describedby"?: string };

/**
 * A labelled control with its hint and error wired up for screen readers. Renders an <input> by
 * default; pass `render` for a select or textarea (it receives the id and aria props).
 */
export function Field({
  label,
  hint,
  error,
  render,
  ...input
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  render?: (props: ControlProps) => ReactNode;
} & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const describedBy =
    [hint ? `${id}-hint` : "", error ? `${id}-err` : ""].filter(Boolean).join(" ") || undefined;
  const control: ControlProps = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {render ? render(control) : <input type="text" {...control} {...input} />}
      {hint ? (
        <div id={`${id}-hint`} className="hint">
          {hint}
        </div>
      ) : null}
      {error ? (
        <div id={`${id}-err`} className="error">
          {error}
        </div>
      ) : null}
    </div>
  );
}

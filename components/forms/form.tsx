"use client";
import {
  useController,
  useForm,
  type Control,
  type FieldPath as RhfPath,
  type FieldValues,
  type UseFormProps,
  type UseFormReturn,
} from "react-hook-form";
import type { z } from "zod";
import {
  CheckboxField,
  JsonField,
  NumberField,
  SelectField,
  TextField,
  type SelectOptions,
} from "./fields";
import { mapIssues, type IssueLike, type MapIssuesOptions } from "./issues";
import { ISSUE_ERROR_TYPE, issueResolver } from "./resolver";

/**
 * react-hook-form + zod through the one issue adapter: the schema validates (and may
 * transform) the values, and `applyIssues` places server issues with the same options, so a
 * field shows the same error whether the browser or the server found it.
 */
export function useIssueForm<S extends z.ZodType<unknown, FieldValues>>(
  schema: S,
  options: Omit<UseFormProps<z.input<S> & FieldValues, unknown, z.output<S>>, "resolver"> & {
    issues?: MapIssuesOptions;
  } = {},
) {
  const { issues: issueOptions = {}, ...formOptions } = options;
  const form = useForm<z.input<S> & FieldValues, unknown, z.output<S>>({
    ...formOptions,
    resolver: issueResolver(schema, issueOptions),
  });
  return {
    ...form,
    /** Places issues (e.g. `issuesOf(trpcError)`) on the fields; unplaced ones on `root`. */
    applyIssues(list: readonly IssueLike[]) {
      setIssues(form, list, issueOptions);
    },
  };
}

/** Places issues on a react-hook-form form: one `setError` per field, the rest on `root`. */
export function setIssues<T extends FieldValues>(
  form: Pick<UseFormReturn<T>, "setError">,
  issues: readonly IssueLike[],
  options: MapIssuesOptions = {},
): void {
  const mapped = mapIssues(issues, options);
  for (const [key, message] of Object.entries(mapped.byField))
    form.setError(key as RhfPath<T>, { type: ISSUE_ERROR_TYPE, message });
  const first = mapped.unplaced[0];
  if (first)
    form.setError("root", {
      type: ISSUE_ERROR_TYPE,
      message: first.message,
      types: Object.fromEntries(mapped.unplaced.map((u) => [u.key, u.message])),
    });
}

/** The form-level messages (`root.types`, key → message) as lines for a summary. */
export function rootMessages(
  errors: UseFormReturn<FieldValues>["formState"]["errors"],
): { key: string; message: string }[] {
  const root = errors.root;
  if (!root) return [];
  const types = root.types ?? {};
  const entries = Object.entries(types).filter(([, m]) => typeof m === "string");
  return entries.length
    ? entries.map(([key, message]) => ({ key, message: String(message) }))
    : [{ key: "_form", message: root.message ?? "" }];
}

/** A field bound to a form: its `control` and the field's name (a dotted path). */
export type Bound<T extends FieldValues, TT = T> = {
  control: Control<T, unknown, TT>;
  name: RhfPath<T>;
};

function useBound<T extends FieldValues, TT>({ control, name }: Bound<T, TT>) {
  const { field, fieldState } = useController({ control, name });
  return { field, error: fieldState.error?.message };
}

type TextProps = Omit<Parameters<typeof TextField>[0], "value" | "onChange" | "error" | "name">;

export function FormText<T extends FieldValues, TT = T>({
  control,
  name,
  fallbackError,
  normalize,
  ...props
}: Bound<T, TT> &
  TextProps & {
    /** Shown when the form has no error for the field (e.g. a live server-side check). */
    fallbackError?: string;
    /** Rewrites the text as it is typed (e.g. to upper case), so the field shows what is kept. */
    normalize?: (text: string) => string;
  }) {
  const { field, error } = useBound({ control, name });
  return (
    <TextField
      {...props}
      name={field.name}
      value={(field.value as string | undefined) ?? ""}
      onChange={normalize ? (v) => field.onChange(normalize(v)) : field.onChange}
      onBlur={field.onBlur}
      inputRef={field.ref}
      error={error ?? fallbackError}
    />
  );
}

export function FormNumber<T extends FieldValues, TT = T>({
  control,
  name,
  ...props
}: Bound<T, TT> &
  Omit<Parameters<typeof NumberField>[0], "value" | "onChange" | "error" | "name">) {
  const { field, error } = useBound({ control, name });
  return (
    <NumberField
      {...props}
      name={field.name}
      value={field.value as number | undefined}
      onChange={field.onChange}
      onBlur={field.onBlur}
      error={error}
    />
  );
}

export function FormSelect<T extends FieldValues, TT = T>({
  control,
  name,
  options,
  ...props
}: Bound<T, TT> & { options: SelectOptions } & Omit<
    Parameters<typeof SelectField>[0],
    "value" | "onChange" | "error" | "name" | "options"
  >) {
  const { field, error } = useBound({ control, name });
  return (
    <SelectField
      {...props}
      options={options}
      name={field.name}
      value={(field.value as string | undefined) ?? ""}
      onChange={field.onChange}
      onBlur={field.onBlur}
      error={error}
    />
  );
}

export function FormCheckbox<T extends FieldValues, TT = T>({
  control,
  name,
  ...props
}: Bound<T, TT> & Omit<Parameters<typeof CheckboxField>[0], "checked" | "onChange" | "error">) {
  const { field, error } = useBound({ control, name });
  return (
    <CheckboxField
      {...props}
      checked={Boolean(field.value)}
      onChange={field.onChange}
      error={error}
    />
  );
}

export function FormJson<T extends FieldValues, TT = T>({
  control,
  name,
  ...props
}: Bound<T, TT> & Omit<Parameters<typeof JsonField>[0], "value" | "onChange" | "error">) {
  const { field, error } = useBound({ control, name });
  return (
    <JsonField
      {...props}
      value={field.value}
      onChange={field.onChange}
      onBlur={field.onBlur}
      error={error}
    />
  );
}

/** The issues no field shows, as an alert under the form (nothing when there are none). */
export function FormIssues({
  errors,
  fallback,
}: {
  errors: UseFormReturn<FieldValues>["formState"]["errors"];
  /** Shown when the form has no issue at all, e.g. a server error without issues. */
  fallback?: string | null;
}) {
  const lines = rootMessages(errors);
  if (lines.length === 0 && !fallback) return null;
  return (
    <div className="form-error" role="alert">
      {lines.length
        ? lines.map(({ key, message }) => (
            <div key={key}>
              {key === "_form" ? "" : `${key}: `}
              {message}
            </div>
          ))
        : fallback}
    </div>
  );
}

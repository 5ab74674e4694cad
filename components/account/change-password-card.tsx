"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { ChangePasswordInput } from "@/lib/schemas/sessions";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./sessions.module.css";

type FieldName = "currentPassword" | "newPassword" | "confirm";

/** Change the password; every other session is signed out (server/services/me/change-password.ts). */
export function ChangePasswordCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const change = useMutation(trpc.me.changePassword.mutationOptions());
  const [values, setValues] = useState({ currentPassword: "", newPassword: "", confirm: "" });
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState("");

  const bind = (name: FieldName) => ({
    value: values[name],
    error: errors[name],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) =>
      setValues((v) => ({ ...v, [name]: e.target.value })),
  });

  async function submit() {
    setFormError("");
    const parsed = ChangePasswordInput.safeParse(values);
    const next: Partial<Record<FieldName, string>> = {};
    if (!parsed.success)
      for (const issue of parsed.error.issues) next[issue.path[0] as FieldName] ??= issue.message;
    if (values.confirm !== values.newPassword) next.confirm = "The passwords do not match";
    setErrors(next);
    if (!parsed.success || next.confirm) return;
    try {
      const r = await change.mutateAsync(parsed.data);
      setValues({ currentPassword: "", newPassword: "", confirm: "" });
      toast(
        r.revokedSessions > 0
          ? `Password changed; ${r.revokedSessions} other session${r.revokedSessions === 1 ? "" : "s"} signed out`
          : "Password changed",
      );
      await qc.invalidateQueries({ queryKey: trpc.session.list.queryKey() });
    } catch (e) {
      const issues = (e as { data?: { issues?: { path?: string[]; message: string }[] } }).data
        ?.issues;
      const field = issues?.[0]?.path?.[0];
      if (field === "currentPassword" || field === "newPassword")
        setErrors({ [field]: issues![0]!.message });
      else setFormError((e as Error).message);
    }
  }

  return (
    <section className="card" aria-labelledby="password-h">
      <div className="card-head">
        <h2 id="password-h">Change password</h2>
      </div>
      <div className="card-body stack">
        <p className="muted small" style={{ margin: 0 }}>
          Every other browser signed in to your account is signed out when the password changes.
        </p>
        <form
          className={`stack ${styles.form}`}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            {...bind("currentPassword")}
          />
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            hint="At least 10 characters."
            {...bind("newPassword")}
          />
          <Field
            label="Repeat new password"
            type="password"
            autoComplete="new-password"
            {...bind("confirm")}
          />
          {formError ? (
            <div className="form-error" role="alert">
              {formError}
            </div>
          ) : null}
          <div>
            <button className="btn btn-primary" type="submit" disabled={change.isPending}>
              Change password
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}

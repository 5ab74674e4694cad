"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useToast } from "@/components/ui/toast";
import { ChangePasswordInput } from "@/lib/schemas/sessions";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./sessions.module.css";

/** The procedure's input plus the repeated password, which must match (checked in the browser). */
const ChangePasswordForm = ChangePasswordInput.extend({ confirm: z.string() }).refine(
  (v) => v.confirm === v.newPassword,
  { path: ["confirm"], message: "The passwords do not match" },
);

const EMPTY = { currentPassword: "", newPassword: "", confirm: "" };

/** Change the password; every other session is signed out (server/services/me/change-password.ts). */
export function ChangePasswordCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const change = useMutation(trpc.me.changePassword.mutationOptions());
  const form = useIssueForm(ChangePasswordForm, {
    defaultValues: EMPTY,
    issues: { fields: Object.keys(EMPTY) },
  });
  const { control } = form;

  async function submit({ currentPassword, newPassword }: z.output<typeof ChangePasswordForm>) {
    try {
      const r = await change.mutateAsync({ currentPassword, newPassword });
      form.reset(EMPTY);
      toast(
        r.revokedSessions > 0
          ? `Password changed; ${r.revokedSessions} other session${r.revokedSessions === 1 ? "" : "s"} signed out`
          : "Password changed",
      );
      await qc.invalidateQueries({ queryKey: trpc.session.list.queryKey() });
    } catch (e) {
      const issues = issuesOf(e);
      if (issues.length) form.applyIssues(issues);
      else form.setError("root", { message: (e as Error).message });
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
        <form className={`stack ${styles.form}`} noValidate onSubmit={form.handleSubmit(submit)}>
          <FormText
            control={control}
            name="currentPassword"
            label="Current password"
            type="password"
            autoComplete="current-password"
          />
          <FormText
            control={control}
            name="newPassword"
            label="New password"
            type="password"
            autoComplete="new-password"
            hint="At least 10 characters."
          />
          <FormText
            control={control}
            name="confirm"
            label="Repeat new password"
            type="password"
            autoComplete="new-password"
          />
          <FormIssues errors={form.formState.errors} />
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

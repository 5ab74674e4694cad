"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { Dialog } from "@/components/ui/dialog";
import type { TriggerKind } from "@/lib/schemas/triggers";
import { useTRPC } from "@/lib/trpc/client";
import { useCurrentInputs } from "@/components/workflows/use-workflow";
import { EventFields } from "./forms/event";
import { ScheduleFields } from "./forms/schedule";
import {
  initialValues,
  TRIGGER_ISSUE_OPTIONS,
  triggerFormSchema,
  type TriggerSubmission,
} from "./forms/values";
import { WebhookFields } from "./forms/webhook";
import { KIND_LABELS } from "./trigger-model";

export interface EditableTrigger {
  id: string;
  kind: string;
  name: string;
  config: unknown;
}

type Mode =
  | { type: "create"; kind: TriggerKind; workflowId: string }
  | { type: "edit"; trigger: EditableTrigger; workflowId: string };

export interface SavedTrigger {
  trigger: { id: string; name: string; url: string | null; config: unknown };
  secret: string | null;
}

const NAME_PLACEHOLDER: Record<TriggerKind, string> = {
  webhook: "Shop orders",
  schedule: "Weekday report",
  event: "On payment",
};

/**
 * Create or edit a trigger of one kind, in a dialog. The fields of each kind live in
 * `forms/<kind>.tsx`; validation (client config parse and server issues alike) goes through
 * the form layer's issue adapter, so an error shows next to the field that causes it.
 */
export function TriggerFormDialog({
  mode,
  onClose,
  onSaved,
}: {
  mode: Mode;
  onClose: () => void;
  onSaved: (res: SavedTrigger) => void;
}) {
  const trpc = useTRPC();
  const kind = (mode.type === "create" ? mode.kind : mode.trigger.kind) as TriggerKind;
  // The mapping's targets: the inputs runs of the current version take.
  const inputs = useCurrentInputs(mode.workflowId);
  // The dialog is mounted per trigger, so the schema and defaults are fixed for its lifetime.
  const [schema] = useState(() =>
    triggerFormSchema(
      kind,
      mode.type === "create"
        ? { type: "create", workflowId: mode.workflowId }
        : { type: "edit", triggerId: mode.trigger.id },
    ),
  );
  const form = useIssueForm(schema, {
    defaultValues:
      mode.type === "create"
        ? initialValues(kind, "", {})
        : initialValues(kind, mode.trigger.name, mode.trigger.config),
    issues: TRIGGER_ISSUE_OPTIONS,
  });
  const create = useMutation(trpc.trigger.create.mutationOptions());
  const update = useMutation(trpc.trigger.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const serverError = create.error ?? update.error;
  const onError = (e: unknown) => form.applyIssues(issuesOf(e));

  function submit(values: TriggerSubmission) {
    if (values.type === "create")
      create.mutate(values.input, { onSuccess: (res) => onSaved(res), onError });
    else
      update.mutate(values.input, {
        onSuccess: (t) => onSaved({ trigger: t as SavedTrigger["trigger"], secret: null }),
        onError,
      });
  }

  const title =
    mode.type === "create"
      ? `New ${KIND_LABELS[kind].toLowerCase()} trigger`
      : `Edit “${mode.trigger.name}”`;
  const formId = `trigger-form-${kind}`;
  const { errors } = form.formState;
  const control = form.control;

  return (
    <Dialog
      open
      onClose={onClose}
      title={title}
      size="xl"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={pending}>
            Cancel
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={pending}>
            {pending ? <span className="spinner" aria-hidden /> : null}
            {mode.type === "create" ? "Create trigger" : "Save changes"}
          </button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={form.handleSubmit(submit)}>
        <FormText
          control={control}
          name="name"
          label="Name"
          placeholder={NAME_PLACEHOLDER[kind]}
          autoFocus
        />
        {kind === "webhook" ? (
          <WebhookFields control={control} isCreate={mode.type === "create"} inputs={inputs} />
        ) : null}
        {kind === "schedule" ? (
          <ScheduleFields control={control} workflowId={mode.workflowId} />
        ) : null}
        {kind === "event" ? (
          <EventFields control={control} isCreate={mode.type === "create"} inputs={inputs} />
        ) : null}
        <FormText
          control={control}
          name="input"
          label="Static input (JSON object)"
          multiline
          spellCheck={false}
          placeholder={'{ "channel": "#ops" }'}
          hint="Passed to every run; mapped values win."
        />
        <FormIssues
          errors={errors}
          fallback={serverError && Object.keys(errors).length === 0 ? serverError.message : null}
        />
      </form>
    </Dialog>
  );
}

"use client";
import { useWatch } from "react-hook-form";
import { FormCheckbox, FormNumber, FormSelect, FormText } from "@/components/forms/form";
import { SIGNATURE_PRESETS, WEBHOOK_METHODS } from "@/lib/schemas/triggers";
import type { InputSpec } from "@/lib/workflow/definition";
import { MappingEditor } from "./mapping-editor";
import type { TriggerControl } from "./values";

const PRESET_LABELS: Record<(typeof SIGNATURE_PRESETS)[number], string> = {
  hmac: "Generic HMAC-SHA256",
  github: "GitHub (X-Hub-Signature-256)",
  stripe: "Stripe (Stripe-Signature)",
  standard: "Standard Webhooks",
  none: "None (anyone with the URL)",
};

/**
 * Webhook settings: path (on create), method, signature verification, limits, response mode,
 * which deliveries start runs (required headers, filter), the input mapping and the repository ref.
 */
export function WebhookFields({
  control,
  isCreate,
  inputs,
}: {
  control: TriggerControl;
  isCreate: boolean;
  inputs?: Record<string, InputSpec>;
}) {
  const [preset, idempotency, mode] = useWatch({
    control,
    name: ["verification.preset", "idempotency", "mode"],
  });
  return (
    <>
      {isCreate ? (
        <FormText
          control={control}
          name="path"
          label="Custom path (optional)"
          hint="The URL becomes /api/hooks/<path>; random when empty."
          placeholder="shop-orders"
        />
      ) : null}
      <div className="form-row">
        <FormSelect
          control={control}
          name="method"
          label="Method"
          options={WEBHOOK_METHODS.map((m) => [m, m] as const)}
        />
        <FormSelect
          control={control}
          name="verification.preset"
          label="Signature verification"
          options={SIGNATURE_PRESETS.map((p) => [p, PRESET_LABELS[p]] as const)}
        />
      </div>
      {preset === "hmac" ? (
        <div className="form-row">
          <FormText control={control} name="verification.header" label="Signature header" />
          <FormText control={control} name="verification.prefix" label="Signature prefix" />
          <FormSelect
            control={control}
            name="verification.encoding"
            label="Encoding"
            options={[
              ["hex", "hex"],
              ["base64", "base64"],
            ]}
          />
          <FormText
            control={control}
            name="verification.timestampHeader"
            label="Timestamp header (optional)"
            hint="When set, the signed string is <timestamp>.<body>."
          />
        </div>
      ) : null}
      {preset !== "none" && preset !== "github" ? (
        <FormNumber
          control={control}
          name="verification.toleranceSeconds"
          label="Timestamp tolerance (seconds)"
        />
      ) : null}
      <div className="form-row">
        <FormNumber
          control={control}
          name="maxBodyKb"
          label="Body limit (KiB)"
          hint="Larger bodies are answered 413."
          step="any"
        />
        <FormSelect
          control={control}
          name="idempotency"
          label="Idempotency"
          options={[
            ["delivery_id", "Delivery id header"],
            ["body_hash", "Body hash"],
            ["none", "None"],
          ]}
        />
        {idempotency === "delivery_id" && preset === "hmac" ? (
          <FormText control={control} name="idHeader" label="Delivery id header" />
        ) : null}
      </div>
      <FormCheckbox
        control={control}
        name="allowEmptyBody"
        label="Accept empty JSON bodies"
        hint="Otherwise a request with a JSON content type and no body is answered 400."
      />
      <div className="form-row">
        <FormNumber control={control} name="rateLimit.perMinute" label="Rate limit (per minute)" />
        <FormNumber control={control} name="rateLimit.burst" label="Burst" />
        <FormSelect
          control={control}
          name="mode"
          label="Response mode"
          options={[
            ["async", "Async: answer 202 {runId}"],
            ["sync", "Sync: wait for the run's output"],
          ]}
        />
        {mode === "sync" ? (
          <FormNumber control={control} name="syncTimeoutSeconds" label="Sync timeout (seconds)" />
        ) : null}
      </div>
      <FormText
        control={control}
        name="requireHeaders"
        label="Required headers (optional JSON)"
        multiline
        spellCheck={false}
        placeholder={'{ "X-GitHub-Event": "pull_request" }'}
        hint="Exact values; names are case-insensitive. Other deliveries are answered 200 and recorded as skipped."
      />
      <FormText
        control={control}
        name="filter"
        label="Filter (optional JSON condition)"
        multiline
        spellCheck={false}
        placeholder={
          '{ "all": [{ "ref": "trigger.body.action", "eq": "closed" }, { "ref": "trigger.body.pull_request.merged", "eq": true }] }'
        }
        hint="Conditions over trigger.body.…, trigger.headers.… (lower-case names), trigger.query.… and trigger.method. Deliveries it rejects are answered 200 and recorded as skipped with the reason."
      />
      <MappingEditor
        control={control}
        inputs={inputs}
        suggestSource={(name) => `$.${name}`}
        sourceHint="Map request values into run inputs: $.order.id (JSON body), query.name, header.x-request-id."
      />
      <FormText
        control={control}
        name="repositoryRef"
        label="Repository ref from (optional)"
        spellCheck={false}
        placeholder="$.after"
        hint="A source such as $.after (a push's commit), query.ref or header.x-ref: the run pins this ref of the workflow's repository. A delivery without a valid ref is refused (422)."
      />
    </>
  );
}

"use client";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { WebhookConfig } from "@/lib/schemas/triggers";
import { sampleRequest } from "@/lib/triggers/samples";
import { useCurrentInputs } from "@/components/workflows/use-workflow";
import secretBox from "@/components/ui/secret-box.module.css";

export interface ShownSecret {
  title: string;
  url: string;
  secret: string;
  config: unknown;
}

/** The webhook URL and its signing secret, shown once right after create or rotate. */
export function SecretDialog({
  shown,
  workflowId,
  onClose,
}: {
  shown: ShownSecret | null;
  workflowId: string;
  onClose: () => void;
}) {
  // The sample sends what the current version's inputs need, so pasting it starts a run.
  const inputs = useCurrentInputs(workflowId);
  const parsed = shown ? WebhookConfig.safeParse(shown.config) : null;
  const sample =
    shown && parsed?.success
      ? sampleRequest({ url: shown.url, config: parsed.data, secret: shown.secret, inputs })
      : null;
  return (
    <Dialog
      open={!!shown}
      onClose={onClose}
      title={shown?.title ?? "Webhook secret"}
      size="lg"
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have stored the secret
        </button>
      }
    >
      {shown ? (
        <div className="stack">
          <div className="callout callout-warn" role="note">
            You will not see this secret again. Store it where the sender can read it; if it is
            lost, rotate it.
          </div>
          <div className="stack" style={{ gap: 4 }}>
            <strong id="wh-url-label">Webhook URL</strong>
            <div className={secretBox.box}>
              <code aria-labelledby="wh-url-label" data-testid="webhook-url">
                {shown.url}
              </code>
              <CopyButton value={shown.url} label="Copy URL" />
            </div>
          </div>
          <div className="stack" style={{ gap: 4 }}>
            <strong id="wh-secret-label">Signing secret</strong>
            <div className={secretBox.box}>
              <code aria-labelledby="wh-secret-label" data-testid="webhook-secret">
                {shown.secret}
              </code>
              <CopyButton value={shown.secret} label="Copy secret" />
            </div>
          </div>
          {sample ? (
            <div className="stack" style={{ gap: 4 }}>
              <div className="row" style={{ justifyContent: "space-between" }}>
                <strong>Sample request</strong>
                <CopyButton value={sample} label="Copy sample" />
              </div>
              <pre aria-label="Sample request" style={{ maxHeight: 220, overflow: "auto" }}>
                {sample}
              </pre>
            </div>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}

"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { GRACE_OPTIONS } from "./trigger-model";

export function RotateDialog({
  triggerId,
  onClose,
  onRotated,
}: {
  triggerId: string;
  onClose: () => void;
  onRotated: (res: { trigger: { url: string | null; config: unknown }; secret: string }) => void;
}) {
  const trpc = useTRPC();
  const [grace, setGrace] = useState("60");
  const rotate = useMutation(trpc.trigger.rotateSecret.mutationOptions({ onSuccess: onRotated }));
  return (
    <Dialog
      open
      onClose={onClose}
      title="Rotate the signing secret"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={rotate.isPending}
            onClick={() => rotate.mutate({ triggerId, graceMinutes: Number(grace) })}
          >
            Rotate secret
          </button>
        </>
      }
    >
      <div className="stack">
        <p style={{ margin: 0 }}>
          A new secret is generated and shown once. During the grace period requests signed with the
          old secret are still accepted, so senders can switch without dropped deliveries.
        </p>
        <Field
          label="Grace period"
          render={(p) => (
            <select {...p} value={grace} onChange={(e) => setGrace(e.target.value)}>
              {GRACE_OPTIONS.map((o) => (
                <option key={o.minutes} value={o.minutes}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        />
        {rotate.error ? (
          <div className="form-error" role="alert">
            {rotate.error.message}
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}

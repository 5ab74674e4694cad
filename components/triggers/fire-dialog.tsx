"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { parseJsonObject, prettyJson } from "./trigger-model";

export function FireDialog({
  triggerId,
  defaultInput,
  onClose,
  onFired,
}: {
  triggerId: string;
  defaultInput: unknown;
  onClose: () => void;
  onFired: () => void;
}) {
  const trpc = useTRPC();
  const [text, setText] = useState(() => prettyJson(defaultInput));
  const [error, setError] = useState("");
  const fire = useMutation(trpc.trigger.fire.mutationOptions({ onSuccess: onFired }));
  return (
    <Dialog
      open
      onClose={onClose}
      title="Fire now"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {fire.data ? "Close" : "Cancel"}
          </button>
          {fire.data ? null : (
            <button
              type="button"
              className="btn btn-primary"
              disabled={fire.isPending}
              onClick={() => {
                const parsed = parseJsonObject(text);
                if (!parsed.ok) return setError(parsed.error);
                setError("");
                fire.mutate({ triggerId, input: parsed.value });
              }}
            >
              Start run
            </button>
          )}
        </>
      }
    >
      {fire.data ? (
        <div className="form-ok" role="status">
          Run started: <Link href={`/runs/${fire.data.runId}`}>open run {fire.data.runId}</Link>
        </div>
      ) : (
        <div className="stack">
          <Field
            label="Run input (JSON object, optional)"
            error={error}
            hint="Empty uses the trigger's static input."
            render={(p) => (
              <textarea
                {...p}
                value={text}
                spellCheck={false}
                onChange={(e) => setText(e.target.value)}
              />
            )}
          />
          {fire.error ? (
            <div className="form-error" role="alert">
              {fire.error.message}
            </div>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}

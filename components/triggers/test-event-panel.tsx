"use client";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Field } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { parseJsonObject } from "./trigger-model";

/** Emits a test event through `trigger.emitEvent` so an event trigger can be tried end to end. */
export function TestEventPanel({ pattern, compact }: { pattern: string; compact?: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const [name, setName] = useState(() => pattern.replace(/\*$/, "test"));
  const [data, setData] = useState("{}");
  const [error, setError] = useState("");
  const headingId = useId();
  const emit = useMutation(
    trpc.trigger.emitEvent.mutationOptions({
      onSuccess: () => toast(`Sent ${name}`),
      onError: (e) => setError(e.message),
    }),
  );
  const send = () => {
    const parsed = parseJsonObject(data);
    if (!parsed.ok) return setError(parsed.error);
    setError("");
    emit.mutate({ name: name.trim(), data: parsed.value ?? {} });
  };
  // Not a <form>: it also sits inside the trigger's edit form, and forms cannot nest.
  return (
    <section className={compact ? "stack" : "card"} aria-labelledby={headingId}>
      <div className={compact ? "" : "card-head"}>
        {compact ? (
          <strong id={headingId}>Send a test event</strong>
        ) : (
          <h2 id={headingId}>Send a test event</h2>
        )}
      </div>
      <div className={compact ? "form" : "card-body form"}>
        <div className="form-row">
          <Field
            label="Event name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            spellCheck={false}
          />
          <Field
            label="Event data (JSON object)"
            render={(p) => (
              <textarea
                {...p}
                value={data}
                spellCheck={false}
                onChange={(e) => setData(e.target.value)}
              />
            )}
          />
        </div>
        {error ? (
          <div className="form-error" role="alert">
            {error}
          </div>
        ) : null}
        <div>
          <button type="button" className="btn" disabled={emit.isPending} onClick={send}>
            Send test event
          </button>
        </div>
      </div>
    </section>
  );
}

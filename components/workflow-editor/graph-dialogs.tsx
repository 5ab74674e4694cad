"use client";
import { useId, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import styles from "./graph-editor.module.css";
import { SHORTCUT_HELP } from "./shortcuts";

/**
 * "Connect…": the keyboard way to draw an edge — pick the port of the selected step and the
 * step it leads to. Refusals (cycles, ports the type lacks, …) show inline with their reason.
 */
export function ConnectDialog({
  from,
  ports,
  targets,
  onConnect,
  onClose,
}: {
  from: string;
  ports: readonly string[];
  targets: readonly { id: string; label: string }[];
  /** Returns the refusal reason, or null when the edge was added. */
  onConnect: (port: string, to: string) => string | null;
  onClose: () => void;
}) {
  const [port, setPort] = useState(ports[0] ?? "");
  const [to, setTo] = useState(targets[0]?.id ?? "");
  const [error, setError] = useState<string | null>(null);
  const portId = useId();
  const toId = useId();
  return (
    <Dialog
      open
      onClose={onClose}
      title={`Connect “${from}”`}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            form={`${portId}-form`}
            className="btn btn-primary"
            disabled={!port || !to}
          >
            Connect
          </button>
        </>
      }
    >
      <form
        id={`${portId}-form`}
        className="stack"
        // Enter on a <select> does not submit a form by itself; in a picker it should.
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.target as HTMLElement).tagName === "SELECT") {
            e.preventDefault();
            e.currentTarget.requestSubmit();
          }
        }}
        onSubmit={(e) => {
          e.preventDefault();
          const refusal = onConnect(port, to);
          if (refusal) setError(refusal);
          else onClose();
        }}
      >
        <div className="field">
          <label htmlFor={portId}>From port</label>
          <select id={portId} value={port} onChange={(e) => setPort(e.target.value)} autoFocus>
            {ports.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={toId}>To step</label>
          <select id={toId} value={to} onChange={(e) => setTo(e.target.value)}>
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
        {targets.length === 0 ? (
          <p className="muted small">There is no other step at this level to connect to.</p>
        ) : null}
        {error ? (
          <div className="form-error" role="alert">
            {error}
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}

/** The `?` popover: every canvas shortcut, from the same table the key handler uses. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog
      open
      onClose={onClose}
      title="Keyboard shortcuts"
      footer={
        <button type="button" className="btn" onClick={onClose} autoFocus>
          Close
        </button>
      }
    >
      <dl className={`kv ${styles.shortcuts}`}>
        {SHORTCUT_HELP.map((s) => (
          <div key={s.keys} style={{ display: "contents" }}>
            <dt>
              <kbd>{s.keys}</kbd>
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

"use client";
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import { newId } from "@/lib/ids";
import styles from "./toast.module.css";

/** A button inside a toast, e.g. Undo after a change that took effect at once. */
export interface ToastAction {
  label: string;
  onClick: () => void;
}
type Toast = { id: string; text: string; kind: "info" | "error"; action?: ToastAction };
type PushToast = (text: string, kind?: Toast["kind"], action?: ToastAction) => void;
const ToastContext = createContext<PushToast>(() => {});

/** A toast with an action stays long enough to reach its button (keyboard users included). */
const ACTION_TOAST_MS = 10_000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: string) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const push = useCallback<PushToast>(
    (text, kind = "info", action) => {
      const id = newId("toast");
      setToasts((t) => [...t, { id, text, kind, ...(action ? { action } : {}) }]);
      setTimeout(() => dismiss(id), action ? ACTION_TOAST_MS : kind === "error" ? 8000 : 4000);
    },
    [dismiss],
  );
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div className={styles.toasts} role="status" aria-live="polite">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={t.kind === "error" ? `${styles.toast} ${styles.error}` : styles.toast}
          >
            {t.text}
            {t.action ? (
              <button
                type="button"
                className={styles.action}
                onClick={() => {
                  dismiss(t.id);
                  t.action!.onClick();
                }}
              >
                {t.action.label}
              </button>
            ) : null}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);

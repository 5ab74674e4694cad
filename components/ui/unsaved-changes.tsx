"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { ConfirmDialog } from "./dialog";

/**
 * Guards a form with unsaved edits: closing or reloading the tab asks through the browser's own
 * prompt (beforeunload), and following a link inside the app asks first in a dialog. The App
 * Router has no navigation events to cancel, so in-app links are caught in the capture phase,
 * before next/link's own click handler. Render it inside the form it guards.
 */
export function UnsavedChangesGuard({
  dirty,
  what = "changes",
}: {
  dirty: boolean;
  what?: string;
}) {
  const router = useRouter();
  const [leavingTo, setLeavingTo] = useState<string | null>(null);
  useEffect(() => {
    if (!dirty) return;
    const onUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
        return;
      const a = (e.target as Element | null)?.closest?.("a[href]");
      if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== "_self")) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin !== window.location.origin) return;
      if (url.pathname === window.location.pathname && url.search === window.location.search)
        return;
      e.preventDefault();
      e.stopPropagation();
      setLeavingTo(url.pathname + url.search + url.hash);
    };
    window.addEventListener("beforeunload", onUnload);
    window.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onUnload);
      window.removeEventListener("click", onClick, true);
    };
  }, [dirty]);
  return (
    <ConfirmDialog
      open={leavingTo !== null}
      title="Leave without saving?"
      body={`You have unsaved ${what} on this page. Leaving discards them; stay to save them first.`}
      confirmLabel="Discard and leave"
      danger
      onClose={() => setLeavingTo(null)}
      onConfirm={() => {
        const to = leavingTo;
        setLeavingTo(null);
        if (to) router.push(to);
      }}
    />
  );
}

/** The visible half of the rule: says there are unsaved edits next to the form's Save button. */
export function UnsavedBadge({ dirty }: { dirty: boolean }) {
  return dirty ? (
    <span className="badge badge-warn" role="status">
      Unsaved changes
    </span>
  ) : null;
}

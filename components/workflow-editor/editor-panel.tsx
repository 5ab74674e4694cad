"use client";
import { useId, type ReactNode } from "react";
import { useSession } from "next-auth/react";
import styles from "./editor-panel.module.css";
import { usePanelOpen, type EditorPanel } from "./panel-state";

/** Whether an editor panel (or the mini map) is open for the signed-in person, and its setter. */
export function useEditorPanel(panel: EditorPanel) {
  const session = useSession();
  const user = session.data?.user as { id?: string; email?: string | null } | undefined;
  return usePanelOpen(user?.id ?? user?.email ?? "anonymous", panel);
}

/**
 * One of the editor's side panels (palette, inspector) or its bottom drawer (problems): a
 * header button that collapses it (aria-expanded, remembered per user) over a body that scrolls
 * on its own, so a long form never makes the page — and the canvas — scroll. The panel is a
 * region named by its title, so the header's summary (the problem counts) belongs to it.
 */
export function CollapsiblePanel({
  panel,
  title,
  placement,
  summary,
  children,
}: {
  panel: EditorPanel;
  title: string;
  placement: "left" | "right" | "bottom";
  /** Shown in the header next to the title (e.g. the problem counts), open or not. */
  summary?: ReactNode;
  children: ReactNode;
}) {
  const [isOpen, setOpen] = useEditorPanel(panel);
  const bodyId = useId();
  return (
    <section
      aria-label={title}
      className={`${styles.panel} ${styles[placement]}`}
      data-panel={panel}
      data-open={isOpen ? "true" : "false"}
    >
      <div className={styles.head}>
        <button
          type="button"
          className={styles.toggle}
          aria-expanded={isOpen}
          aria-controls={bodyId}
          title={
            isOpen ? `Collapse the ${title.toLowerCase()}` : `Expand the ${title.toLowerCase()}`
          }
          onClick={() => setOpen(!isOpen)}
        >
          <span className={styles.chevron} aria-hidden />
          <span className={styles.title}>{title}</span>
        </button>
        {summary ? <span className={styles.summary}>{summary}</span> : null}
      </div>
      <div id={bodyId} className={styles.body} hidden={!isOpen} data-testid={`${panel}-panel-body`}>
        {children}
      </div>
    </section>
  );
}

import type { Metadata } from "next";
import { WorkflowEditor } from "@/components/workflow-editor/workflow-editor";
import styles from "./edit.module.css";

export const metadata: Metadata = { title: "Edit workflow" };

export default async function EditPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ view?: string; run?: string }>;
}) {
  const { id } = await params;
  const { view, run } = await searchParams;
  // The graph is the default view; `?view=json` opens the JSON editor; `?run=<id>` shows that
  // run's step statuses on the canvas ("Open in editor" on a run page).
  // `data-full-window`: the shell gives this route the whole window (globals.css, Shell).
  return (
    <div className={styles.fullWindow} data-full-window>
      <WorkflowEditor
        workflowId={id}
        view={view === "json" ? "json" : "graph"}
        runId={typeof run === "string" && run ? run : null}
      />
    </div>
  );
}

"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./new-workflow-form.module.css";
import tabs from "@/components/shell/tabs.module.css";

/** Create from a built-in starter, or import a JSON/YAML definition (pasted or uploaded). */
export function NewWorkflowForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const starters = useQuery(trpc.workflow.starters.queryOptions());
  const [mode, setMode] = useState<"starter" | "import">("starter");
  const [name, setName] = useState("");
  const [template, setTemplate] = useState("blank");
  const [content, setContent] = useState("");
  const [nameError, setNameError] = useState("");
  const create = useMutation(
    trpc.workflow.create.mutationOptions({
      onSuccess: (wf) => router.push(`/workflows/${wf.id}/edit`),
    }),
  );
  const imp = useMutation(
    trpc.workflow.import.mutationOptions({ onSuccess: (wf) => router.push(`/workflows/${wf.id}`) }),
  );
  const error = mode === "starter" ? create.error : imp.error;
  const issues = (
    error?.data as
      | {
          issues?: {
            path?: (string | number)[];
            message: string;
            line?: number;
            column?: number;
          }[];
        }
      | undefined
  )?.issues;

  return (
    <div className="stack" style={{ maxWidth: 860 }}>
      <div className={tabs.tabs} role="tablist" aria-label="How to start">
        <a
          role="tab"
          href="#starter"
          aria-selected={mode === "starter"}
          aria-current={mode === "starter" ? "page" : undefined}
          onClick={(e) => {
            e.preventDefault();
            setMode("starter");
          }}
        >
          From a template
        </a>
        <a
          role="tab"
          href="#import"
          aria-selected={mode === "import"}
          aria-current={mode === "import" ? "page" : undefined}
          onClick={(e) => {
            e.preventDefault();
            setMode("import");
          }}
        >
          Import JSON or YAML
        </a>
      </div>
      {error ? (
        <div className="form-error" role="alert">
          {error.message}
          {issues && issues.length > 1 ? (
            <ul>
              {issues.slice(0, 20).map((i, n) => (
                <li key={n}>
                  {i.path?.length ? <code>{i.path.join(".")}</code> : null}{" "}
                  {i.line ? `line ${i.line}, column ${i.column}: ` : ""}
                  {i.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {mode === "starter" ? (
        <form
          className="form card card-body"
          onSubmit={(e) => {
            e.preventDefault();
            if (!name.trim()) return setNameError("Give the workflow a name");
            setNameError("");
            create.mutate({ name, template });
          }}
        >
          <Field
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={nameError}
            placeholder="Release train"
            autoFocus
          />
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend style={{ fontWeight: 560, fontSize: 13, marginBottom: 6 }}>Template</legend>
            {starters.isPending ? (
              <LoadingRows rows={2} />
            ) : starters.error ? (
              <ErrorState message={starters.error.message} />
            ) : (
              <div className={styles.starters}>
                {starters.data.map((s) => (
                  <label
                    key={s.id}
                    className={
                      template === s.id ? `${styles.starter} ${styles.selected}` : styles.starter
                    }
                  >
                    <input
                      type="radio"
                      name="template"
                      value={s.id}
                      checked={template === s.id}
                      onChange={() => setTemplate(s.id)}
                    />
                    <strong>{s.name}</strong>
                    <span className="muted small">{s.description}</span>
                  </label>
                ))}
              </div>
            )}
          </fieldset>
          <div>
            <button className="btn btn-primary" type="submit" disabled={create.isPending}>
              {create.isPending ? <span className="spinner" aria-hidden /> : null} Create workflow
            </button>
          </div>
        </form>
      ) : (
        <form
          className="form card card-body"
          onSubmit={(e) => {
            e.preventDefault();
            imp.mutate({ content });
          }}
        >
          <div className="field">
            <label htmlFor="import-file">File</label>
            <input
              id="import-file"
              type="file"
              accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
              onChange={async (e) => {
                const f = e.target.files?.[0];
                if (f) setContent(await f.text());
              }}
            />
          </div>
          <div className="field">
            <label htmlFor="import-text">Definition</label>
            <textarea
              id="import-text"
              rows={14}
              value={content}
              onChange={(e) => setContent(e.target.value)}
              placeholder='{ "schemaVersion": 1, "name": "…", "steps": [ … ] }'
            />
            <div className="hint">
              JSON or YAML. It is validated, then becomes version 1.0.0 of a new workflow.
            </div>
          </div>
          <div>
            <button
              className="btn btn-primary"
              type="submit"
              disabled={imp.isPending || !content.trim()}
            >
              {imp.isPending ? <span className="spinner" aria-hidden /> : null} Import workflow
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

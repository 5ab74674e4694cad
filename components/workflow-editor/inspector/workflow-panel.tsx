"use client";
import { useRef, useState } from "react";
import { JsonField, TextField } from "@/components/forms/fields";
import { SchemaFields } from "@/components/forms/schema-form";
import { isPlainObject } from "@/lib/workflow/json";
import { freshKey, renameKey, setAt, type Definition, type DocPath } from "@/lib/workflow/edit-ops";
import type { InspectorProps } from "./index";
import { errorsUnder, issuesAt } from "./issues";
import { IssueNotes } from "./issue-notes";
import { constraintFields, inputSpecFields } from "./step-schema";
import styles from "./inspector.module.css";

/** Nothing selected: the workflow itself — name, description, inputs, variables, constraints. */
export function WorkflowPanel({
  definition,
  issues,
  readOnly,
  onChange,
}: Omit<InspectorProps, "selection" | "onSelect">) {
  const placed = issuesAt(issues, []);
  const errors = placed.byField;
  // Emptied records (`inputs: {}`) and constraint objects are removed with their last entry.
  const set = (path: DocPath, value: unknown) =>
    onChange((latest) => setAt(latest, path, value, 1), { key: `workflow:${path.join(".")}` });
  const inputs = isPlainObject(definition.inputs) ? definition.inputs : {};
  const variables = isPlainObject(definition.variables) ? definition.variables : {};
  const repository = isPlainObject(definition.repository) ? definition.repository : {};
  const inputKeys = useStableKeys();
  const variableKeys = useStableKeys();
  return (
    <div className={styles.panel}>
      <header className={styles.head}>
        <h2 className={styles.title}>Workflow</h2>
        <p className="muted small">Select a step or an edge to edit it.</p>
      </header>
      <IssueNotes issues={placed.general} />
      <section className={styles.section} aria-label="Workflow">
        <TextField
          label="Workflow name"
          value={typeof definition.name === "string" ? definition.name : ""}
          disabled={readOnly}
          error={errors.name}
          onChange={(text) => set(["name"], text)}
        />
        <TextField
          label="Description"
          multiline
          rows={3}
          value={typeof definition.description === "string" ? definition.description : ""}
          disabled={readOnly}
          error={errors.description}
          onChange={(text) => set(["description"], text === "" ? undefined : text)}
        />
        <TextField
          label="Time zone"
          value={typeof definition.timezone === "string" ? definition.timezone : ""}
          placeholder="UTC"
          hint="IANA name used by schedules, e.g. Europe/Berlin."
          disabled={readOnly}
          error={errors.timezone}
          onChange={(text) => set(["timezone"], text === "" ? undefined : text)}
        />
      </section>

      <section className={styles.section} aria-label="Repository">
        <h3 className={styles.sectionTitle}>Repository</h3>
        <p className="section-note">
          Optional. Each run pins the ref to a commit before step 1; script steps run in a read-only
          checkout of it.
        </p>
        <TextField
          label="Repository URL"
          value={typeof repository.url === "string" ? repository.url : ""}
          placeholder="https://github.com/acme/app.git"
          hint="https://, ssh:// or user@host:path, file:/// or an absolute path."
          disabled={readOnly}
          error={errors["repository.url"] ?? errors.repository}
          onChange={(text) => set(["repository", "url"], text === "" ? undefined : text)}
        />
        <TextField
          label="Repository ref"
          value={typeof repository.ref === "string" ? repository.ref : ""}
          placeholder="main"
          hint="Branch, tag or commit SHA."
          disabled={readOnly}
          error={errors["repository.ref"]}
          onChange={(text) => set(["repository", "ref"], text === "" ? undefined : text)}
        />
        <TextField
          label="Credentials secret"
          value={
            typeof repository.credentialsSecret === "string" ? repository.credentialsSecret : ""
          }
          placeholder="GIT_TOKEN"
          hint="Workspace secret: an https token (or user:token) or an ssh private key."
          disabled={readOnly}
          error={errors["repository.credentialsSecret"]}
          onChange={(text) =>
            set(["repository", "credentialsSecret"], text === "" ? undefined : text)
          }
        />
      </section>

      <section className={styles.section} aria-label="Inputs">
        <h3 className={styles.sectionTitle}>Inputs</h3>
        <p className="section-note">Values a run starts with, used as {"{{ input.<name> }}"}.</p>
        {Object.entries(inputs).map(([name, spec]) => (
          <fieldset key={inputKeys.of(name)} className={styles.entry} aria-label={`Input ${name}`}>
            <KeyName
              label="Input name"
              name={name}
              readOnly={readOnly}
              error={errors[`inputs.${name}`]}
              onRename={(to) =>
                inputKeys.rename(name, to, renameKey(definition, ["inputs"], name, to))
              }
              onChange={onChange}
            />
            <SchemaFields
              fields={inputSpecFields()}
              value={spec}
              errors={errorsUnder(errors, `inputs.${name}`)}
              disabled={readOnly}
              onChange={(path, value) => set(["inputs", name, ...path], value)}
            />
            {!readOnly ? (
              <SmallButton
                label={`Remove input ${name}`}
                onClick={() => set(["inputs", name], undefined)}
              >
                Remove
              </SmallButton>
            ) : null}
          </fieldset>
        ))}
        {!readOnly ? (
          <div>
            <SmallButton
              onClick={() => set(["inputs", freshKey(inputs, "input")], { type: "string" })}
            >
              Add input
            </SmallButton>
          </div>
        ) : null}
      </section>

      <section className={styles.section} aria-label="Variables">
        <h3 className={styles.sectionTitle}>Variables</h3>
        <p className="section-note">Constants, used as {"{{ vars.<name> }}"}; never templated.</p>
        {Object.entries(variables).map(([name, value]) => (
          <fieldset
            key={variableKeys.of(name)}
            className={styles.entry}
            aria-label={`Variable ${name}`}
          >
            <KeyName
              label="Variable name"
              name={name}
              readOnly={readOnly}
              error={errors[`variables.${name}`]}
              onRename={(to) =>
                variableKeys.rename(name, to, renameKey(definition, ["variables"], name, to))
              }
              onChange={onChange}
            />
            <JsonField
              label={`Value of ${name} (JSON)`}
              value={value}
              disabled={readOnly}
              onChange={(next) => set(["variables", name], next === undefined ? null : next)}
            />
            {!readOnly ? (
              <SmallButton
                label={`Remove variable ${name}`}
                onClick={() => set(["variables", name], undefined)}
              >
                Remove
              </SmallButton>
            ) : null}
          </fieldset>
        ))}
        {!readOnly ? (
          <div>
            <SmallButton onClick={() => set(["variables", freshKey(variables, "var")], "")}>
              Add variable
            </SmallButton>
          </div>
        ) : null}
      </section>

      <section className={styles.section} aria-label="Constraints">
        <h3 className={styles.sectionTitle}>Constraints</h3>
        <SchemaFields
          fields={constraintFields()}
          value={definition}
          errors={errors}
          disabled={readOnly}
          onChange={(path, value) => set(path, value)}
        />
      </section>

      <section className={styles.section} aria-label="Output">
        <JsonField
          label="Run output (JSON)"
          hint='Usually one template, e.g. "{{ steps.deploy.output.data }}"; null when omitted.'
          value={definition.output}
          disabled={readOnly}
          error={errors.output}
          onChange={(next) => set(["output"], next)}
        />
      </section>
    </div>
  );
}

/**
 * React keys for record entries that survive a rename: keyed by name, a renamed entry would be
 * a new element, so React would drop the focused field and focus would fall to the page body
 * (the default and description typed next were lost, Space toggled "Required").
 */
function useStableKeys() {
  const keys = useRef(new Map<string, string>());
  const next = useRef(0);
  return {
    of(name: string): string {
      let key = keys.current.get(name);
      if (key === undefined) {
        key = `entry-${next.current++}`;
        keys.current.set(name, key);
      }
      return key;
    },
    /** Moves `from`'s key to `to` when the rename succeeded; passes the result through. */
    rename<R extends { ok: boolean }>(from: string, to: string, result: R): R {
      if (result.ok) {
        const key = this.of(from);
        keys.current.delete(from);
        keys.current.set(to, key);
      }
      return result;
    },
  };
}

/** A record key edited in place; the rename happens on commit (Enter or leaving the field). */
function KeyName({
  label,
  name,
  readOnly,
  error,
  onRename,
  onChange,
}: {
  label: string;
  name: string;
  readOnly: boolean;
  error?: string;
  onRename: (to: string) => { ok: true; definition: Definition } | { ok: false; reason: string };
  onChange: InspectorProps["onChange"];
}) {
  const [draft, setDraft] = useState(name);
  const [refusal, setRefusal] = useState<string | null>(null);
  const commit = () => {
    const to = draft.trim();
    if (to === name || to === "") return setDraft(name);
    const result = onRename(to);
    if (!result.ok) return setRefusal(result.reason);
    setRefusal(null);
    onChange(result.definition);
  };
  return (
    <div
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          commit();
        }
      }}
    >
      <TextField
        label={label}
        value={draft}
        mono
        spellCheck={false}
        disabled={readOnly}
        error={refusal ?? error}
        onChange={setDraft}
        onBlur={commit}
      />
    </div>
  );
}

/** The panel's small secondary button (add / remove an entry). */
function SmallButton({
  label,
  onClick,
  children,
}: {
  label?: string;
  onClick: () => void;
  children: React.ReactNode;
}) {
  return (
    <button type="button" className="btn btn-sm" aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}

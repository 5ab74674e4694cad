"use client";
import { useState } from "react";
import { TextField } from "@/components/forms/fields";
import { SchemaFields } from "@/components/forms/schema-form";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import { typeScopeOf } from "@/lib/workflow/comparison-types";
import { tryRenameStep } from "@/lib/workflow/edit-ops";
import { isStepType } from "@/lib/workflow/steps";
import { ConditionBuilder } from "./condition-builder";
import { editStep, findStep, type Definition, type DocPath } from "@/lib/workflow/edit-ops";
import type { InspectorProps } from "./index";
import { errorsUnder, stepIssues } from "./issues";
import { IssueNotes } from "./issue-notes";
import { referencePaths } from "./references";
import { configFields, fieldTraits, runPolicyFields } from "./step-schema";
import { TemplateField } from "./template-field";
import { TestStepSection } from "../test-run/test-step-section";
import styles from "./inspector.module.css";

/** Everything about one step: id, name, type, its config form, `when`, retry and timeout. */
export function StepPanel({
  definition,
  id,
  issues,
  readOnly,
  onChange,
  onSelect,
  secrets,
}: Omit<InspectorProps, "selection"> & { id: string; secrets: readonly string[] }) {
  const step = findStep(definition, id);
  if (!step) return <p className="muted small">The selected step no longer exists.</p>;
  const type = String(step.type);
  const info = isStepType(type) ? STEP_CATALOG[type] : undefined;
  const placed = stepIssues(issues, definition, id);
  const edit = (rel: DocPath, value: unknown) =>
    onChange((latest) => editStep(latest, id, rel, value), { key: `step:${id}:${rel.join(".")}` });
  const refs = (allowSecrets: boolean) => referencePaths(definition, id, { secrets, allowSecrets });
  const conditionRefs = referencePaths(definition, id);
  const typeScope = typeScopeOf(definition);
  return (
    <div className={styles.panel}>
      <header className={styles.head}>
        <h2 className={styles.title}>{step.name || id}</h2>
        <p className="muted small">
          {info ? `${info.label} — ${info.description}` : `Unknown step type "${type}".`}
        </p>
      </header>
      <IssueNotes issues={placed.general} />
      <TestStepSection stepId={id} />
      <section className={styles.section} aria-label="Step">
        <StepIdField
          key={id}
          definition={definition}
          id={id}
          readOnly={readOnly}
          error={placed.byField.id}
          onRenamed={(next, to) => {
            onChange(next);
            onSelect({ kind: "step", id: to });
          }}
        />
        <TextField
          label="Name"
          value={typeof step.name === "string" ? step.name : ""}
          placeholder={id}
          hint="Display name on the canvas; the id is what templates use."
          disabled={readOnly}
          error={placed.byField.name}
          onChange={(text) => edit(["name"], text === "" ? undefined : text)}
        />
        <div className="field">
          <span className={styles.fakeLabel} id={`${id}-type`}>
            Type
          </span>
          <code aria-labelledby={`${id}-type`}>{type}</code>
        </div>
      </section>
      <section className={styles.section} aria-label="Configuration">
        <h3 className={styles.sectionTitle}>Configuration</h3>
        {type === "loop" ? (
          <p className="section-note">The loop body is edited on the canvas.</p>
        ) : null}
        <SchemaFields
          fields={configFields(type)}
          value={step}
          errors={placed.byField}
          disabled={readOnly}
          onChange={(path, value) => edit(path, value)}
          renderText={(spec, props) => {
            const traits = fieldTraits(type, spec.path[1] ?? "");
            return traits.templates ? (
              <TemplateField {...props} paths={refs(traits.secrets)} />
            ) : (
              <TextField {...props} />
            );
          }}
          renderCondition={(spec) => (
            <ConditionBuilder
              label={spec.label}
              required
              value={(step.config as Record<string, unknown> | undefined)?.[spec.name]}
              refs={conditionRefs}
              scope={typeScope}
              errors={errorsUnder(placed.byField, spec.path.join("."))}
              disabled={readOnly}
              onChange={(next) => edit(spec.path, next)}
            />
          )}
        />
      </section>
      <section className={styles.section} aria-label="Run condition">
        <ConditionBuilder
          label="Run only when"
          value={step.when}
          refs={conditionRefs}
          scope={typeScope}
          errors={errorsUnder(placed.byField, "when")}
          disabled={readOnly}
          emptyHint="Always runs when its incoming edges allow."
          onChange={(next) => edit(["when"], next)}
        />
      </section>
      <section className={styles.section} aria-label="Retry and timeout">
        <h3 className={styles.sectionTitle}>Retry and timeout</h3>
        {info?.waits ? (
          <p className="section-note">
            A waiting step has its own timeout in its configuration; the attempt timeout is ignored.
          </p>
        ) : null}
        <SchemaFields
          fields={runPolicyFields()}
          value={step}
          errors={placed.byField}
          disabled={readOnly}
          onChange={(path, value) => edit(path, value)}
        />
      </section>
    </div>
  );
}

/** The id, renamed on commit (Enter or leaving the field) with every reference updated. */
function StepIdField({
  definition,
  id,
  readOnly,
  error,
  onRenamed,
}: {
  definition: Definition;
  id: string;
  readOnly: boolean;
  error?: string;
  onRenamed: (next: Definition, to: string) => void;
}) {
  const [draft, setDraft] = useState(id);
  const [refusal, setRefusal] = useState<string | null>(null);
  const commit = () => {
    const to = draft.trim();
    if (to === id) return setRefusal(null);
    const result = tryRenameStep(definition, id, to);
    if (!result.ok) return setRefusal(result.reason);
    setRefusal(null);
    onRenamed(result.definition, to);
  };
  return (
    <div
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          commit();
        }
        if (e.key === "Escape") {
          setDraft(id);
          setRefusal(null);
        }
      }}
    >
      <TextField
        label="Id"
        value={draft}
        mono
        spellCheck={false}
        disabled={readOnly}
        hint="Renaming updates every edge, template and condition that uses it (press Enter)."
        error={refusal ?? error}
        onChange={setDraft}
        onBlur={commit}
      />
    </div>
  );
}

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { validateDefinition } from "@/lib/workflow";
import { starterConfig } from "@/lib/workflow/edit-ops";
import { STEP_TYPES } from "@/lib/workflow/steps";
import type { EditorIssue } from "@/components/workflows/issue-list";
import { EdgePanel } from "./edge-panel";
import { StepPanel } from "./step-panel";
import { WorkflowPanel } from "./workflow-panel";

// Server rendering (no DOM here): every panel renders for every step type without throwing,
// with its labelled controls and the validator's messages next to their fields.
const noop = () => {};

function definitionWith(type: (typeof STEP_TYPES)[number]) {
  return {
    schemaVersion: 1,
    name: "Render",
    inputs: { who: { type: "string", required: true } },
    variables: { env: "prod" },
    constraints: { maxParallel: 2 },
    steps: [
      { id: "first", type: "transform", config: { value: "{{ input.who }}" } },
      {
        id: "subject",
        type,
        config: starterConfig(type),
        when: { all: [{ ref: "steps.first.output.data", eq: "x" }, { not: { ref: "vars.env" } }] },
      },
    ],
  } as Record<string, unknown>;
}

describe("inspector panels render", () => {
  it.each(STEP_TYPES)("a %s step", (type) => {
    const definition = definitionWith(type);
    const html = renderToStaticMarkup(
      createElement(StepPanel, {
        definition,
        id: "subject",
        issues: validateDefinition(definition).issues as EditorIssue[],
        readOnly: false,
        onChange: noop,
        onSelect: noop,
        secrets: ["API_TOKEN"],
      }),
    );
    expect(html).toContain("Run only when");
    expect(html).toContain("Max attempts");
    expect(html).toContain('aria-label="Operator"');
    expect(html).toContain("steps.first.output.data");
  });

  it("shows a field's issue next to it", () => {
    const definition = definitionWith("http");
    (definition.steps as { config: Record<string, unknown> }[])[1]!.config.url = "nope";
    const html = renderToStaticMarkup(
      createElement(StepPanel, {
        definition,
        id: "subject",
        issues: validateDefinition(definition).issues as EditorIssue[],
        readOnly: true,
        onChange: noop,
        onSelect: noop,
        secrets: [],
      }),
    );
    expect(html).toMatch(
      /aria-invalid="true"[^>]*value="nope"|value="nope"[^>]*aria-invalid="true"/,
    );
    expect(html).toContain("is not an absolute URL");
  });

  it("an edge and the workflow", () => {
    const definition = definitionWith("condition");
    const edge = renderToStaticMarkup(
      createElement(EdgePanel, {
        definition,
        edge: { from: "first", port: "success", to: "subject" },
        issues: [],
        readOnly: false,
        onChange: noop,
        onSelect: noop,
      }),
    );
    expect(edge).toContain("If the source fails");
    expect(edge).toContain("Fail the run");
    expect(edge).toContain("runs in array order");
    const workflow = renderToStaticMarkup(
      createElement(WorkflowPanel, { definition, issues: [], readOnly: false, onChange: noop }),
    );
    for (const text of ["Workflow name", "Add input", "Add variable", "Max parallel", "Overflow"])
      expect(workflow).toContain(text);
  });
});

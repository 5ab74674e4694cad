"use client";
import { CheckboxGrid } from "@/components/ui/checkbox-grid";
import {
  APPROVAL_TARGETS,
  SAFE_HTTP_METHODS,
  type ApprovalTarget,
} from "@/lib/workflow/required-approvals";
import { HTTP_METHODS } from "@/lib/workflow/steps";
import { STEP_CATALOG } from "@/lib/workflow/catalog";

const WRITE_METHODS = HTTP_METHODS.filter((m) => !SAFE_HTTP_METHODS.includes(m)).join(", ");

function labelOf(target: ApprovalTarget) {
  if (target === "http_write")
    return (
      <>
        HTTP requests that change something <code className="faint">http</code>{" "}
        <span className="faint small">{WRITE_METHODS}</span>
      </>
    );
  return (
    <>
      {target === "http" ? "HTTP requests, any method" : STEP_CATALOG[target].label}{" "}
      <code className="faint">{target}</code>
    </>
  );
}

/**
 * Required approvals (RFC 001 §12): the kinds of steps that must follow an approval on every
 * path from the start of a workflow. A controlled checkbox list for the policies form.
 */
export function RequiredApprovalsField({
  value,
  onChange,
  readOnly,
}: {
  value: readonly ApprovalTarget[];
  onChange: (next: ApprovalTarget[]) => void;
  readOnly: boolean;
}) {
  return (
    <fieldset className="plain">
      <legend className="section-note" style={{ fontWeight: 400, fontSize: 12.5 }}>
        Steps of these kinds must come after an approval step on every path from the start of the
        workflow (leaving it by its <code>approved</code> port). Publishing, importing, syncing,
        inline runs and change proposals are refused otherwise, naming the step and the path that
        reaches it without an approval.
      </legend>
      <CheckboxGrid
        options={APPROVAL_TARGETS.map((target) => ({ value: target, label: labelOf(target) }))}
        value={value}
        onChange={onChange}
        disabled={readOnly}
      />
    </fieldset>
  );
}

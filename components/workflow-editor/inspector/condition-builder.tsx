"use client";
import { useId, useState } from "react";
import { JsonField } from "@/components/forms/fields";
import type { TypeScope } from "@/lib/workflow/comparison-types";
import type { InputType } from "@/lib/workflow/input-spec";
import type { JsonValue } from "@/lib/workflow/json";
import {
  addChild,
  convertValue,
  LEAF_OPERATORS,
  leafTypes,
  newLeaf,
  OPERATOR_LABELS,
  removeNode,
  setGroupMode,
  setLeafOperator,
  setLeafRef,
  setLeafValue,
  shownValueType,
  toTree,
  typedValue,
  unwrapNot,
  updateNode,
  wrapNode,
  type CondNode,
  type LeafOperator,
  type NodePath,
  type ValueType,
} from "./condition-model";
import styles from "./inspector.module.css";

interface Ctx {
  root: unknown;
  change: (next: unknown) => void;
  refs: readonly string[];
  refListId: string;
  /** What references are known to hold: the value type follows it. */
  scope?: TypeScope;
  /** Issues keyed by dotted path relative to the condition. */
  errors: Readonly<Record<string, string>>;
  disabled?: boolean;
}

/**
 * The condition builder: reference → operator → value, grouped with all / any / not, nested.
 * Every edit changes the condition JSON at the node's path only (condition-model.ts), so what
 * the person wrote elsewhere in the condition stays as written; shapes the builder cannot show
 * are edited as JSON in place, and the whole condition can be edited as JSON too.
 */
export function ConditionBuilder({
  label,
  value,
  onChange,
  refs,
  scope,
  errors = {},
  disabled,
  required,
  emptyHint,
}: {
  label: string;
  value: unknown;
  /** `undefined` removes the condition. */
  onChange: (next: unknown) => void;
  refs: readonly string[];
  /** The definition's declarations (typeScopeOf): a value compared with a number input is a number. */
  scope?: TypeScope;
  errors?: Readonly<Record<string, string>>;
  disabled?: boolean;
  /** The condition cannot be removed (a condition step's condition). */
  required?: boolean;
  emptyHint?: string;
}) {
  const refListId = useId();
  const [asJson, setAsJson] = useState(false);
  const ctx: Ctx = { root: value, change: onChange, refs, refListId, scope, errors, disabled };
  const whole = errors._form;
  return (
    <fieldset className={styles.condition}>
      <legend>{label}</legend>
      <datalist id={refListId}>
        {refs.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
      {value === undefined ? (
        <div className="row">
          <span className="muted small">{emptyHint ?? "No condition."}</span>
          {!disabled ? (
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => onChange(newLeaf(refs[0] ?? ""))}
            >
              Add condition
            </button>
          ) : null}
        </div>
      ) : asJson ? (
        <JsonField
          label={`${label} (JSON)`}
          value={value}
          rows={6}
          disabled={disabled}
          error={whole}
          onChange={(next) => onChange(next === undefined && required ? value : next)}
        />
      ) : (
        <NodeView node={toTree(value)} ctx={ctx} />
      )}
      {value !== undefined ? (
        <div className="row">
          <button type="button" className="btn btn-sm" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit with the builder" : "Edit as JSON"}
          </button>
          {!required && !disabled ? (
            <button type="button" className="btn btn-sm" onClick={() => onChange(undefined)}>
              Remove condition
            </button>
          ) : null}
        </div>
      ) : null}
    </fieldset>
  );
}

const key = (path: NodePath) => (path.length ? path.join(".") : "_form");

function errorFor(ctx: Ctx, path: NodePath): string | undefined {
  return ctx.errors[key(path)];
}

function NodeView({ node, ctx }: { node: CondNode; ctx: Ctx }) {
  switch (node.kind) {
    case "leaf":
      return <LeafView node={node} ctx={ctx} />;
    case "group":
      return <GroupView node={node} ctx={ctx} />;
    case "not":
      return (
        <div className={styles.condNot} role="group" aria-label="Not">
          <div className={styles.condHead}>
            <strong>NOT</strong>
            {!ctx.disabled ? (
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => ctx.change(unwrapNot(ctx.root, node.path))}
              >
                Remove “not”
              </button>
            ) : null}
          </div>
          <NodeView node={node.child} ctx={ctx} />
        </div>
      );
    case "raw":
      return (
        <div className={styles.condRaw}>
          <JsonField
            label="Condition (JSON)"
            hint={`The builder cannot show this part: ${node.reason}`}
            value={node.value}
            disabled={ctx.disabled}
            error={errorFor(ctx, node.path)}
            onChange={(next) =>
              next === undefined
                ? ctx.change(removeNode(ctx.root, node.path))
                : ctx.change(updateNode(ctx.root, node.path, next))
            }
          />
        </div>
      );
  }
}

function GroupView({ node, ctx }: { node: Extract<CondNode, { kind: "group" }>; ctx: Ctx }) {
  const error = errorFor(ctx, node.path) ?? errorFor(ctx, [...node.path, node.mode]);
  return (
    <div
      className={styles.condGroup}
      role="group"
      aria-label={node.mode === "all" ? "All of" : "Any of"}
    >
      <div className={styles.condHead}>
        <select
          aria-label="Combine with"
          value={node.mode}
          disabled={ctx.disabled}
          onChange={(e) =>
            ctx.change(setGroupMode(ctx.root, node.path, e.target.value as "all" | "any"))
          }
        >
          <option value="all">All of (and)</option>
          <option value="any">Any of (or)</option>
        </select>
        <NodeActions path={node.path} ctx={ctx} />
      </div>
      {error ? <div className="error">{error}</div> : null}
      <ol className={styles.condList}>
        {node.children.map((child) => (
          <li key={key(child.path)}>
            <NodeView node={child} ctx={ctx} />
          </li>
        ))}
      </ol>
      {!ctx.disabled ? (
        <div className="row">
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => ctx.change(addChild(ctx.root, node.path))}
          >
            Add condition
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() =>
              ctx.change(addChild(ctx.root, node.path, { any: [newLeaf(), newLeaf()] }))
            }
          >
            Add group
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Wrap in and/or/not, remove — the same for leaves and groups. */
function NodeActions({ path, ctx }: { path: NodePath; ctx: Ctx }) {
  if (ctx.disabled) return null;
  return (
    <span className={styles.condActions}>
      <select
        aria-label="Wrap"
        value=""
        onChange={(e) => {
          const wrapper = e.target.value as "all" | "any" | "not" | "";
          if (wrapper) ctx.change(wrapNode(ctx.root, path, wrapper));
        }}
      >
        <option value="">Wrap…</option>
        <option value="all">in “all of” with a new condition</option>
        <option value="any">in “any of” with a new condition</option>
        <option value="not">in “not”</option>
      </select>
      <button
        type="button"
        className="btn btn-sm"
        aria-label="Remove this condition"
        onClick={() => ctx.change(removeNode(ctx.root, path))}
      >
        Remove
      </button>
    </span>
  );
}

function LeafView({ node, ctx }: { node: Extract<CondNode, { kind: "leaf" }>; ctx: Ctx }) {
  const refError = errorFor(ctx, [...node.path, "ref"]);
  const opError = node.op === "truthy" ? undefined : errorFor(ctx, [...node.path, node.op]);
  const leafError = errorFor(ctx, node.path);
  const errorId = useId();
  const error = refError ?? opError ?? leafError;
  return (
    <div className={styles.condLeaf} role="group" aria-label="Condition">
      <input
        aria-label="Reference"
        className="mono"
        list={ctx.refListId}
        placeholder="steps.check.output.data"
        value={node.ref}
        disabled={ctx.disabled}
        spellCheck={false}
        aria-invalid={refError ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => ctx.change(setLeafRef(ctx.root, node.path, e.target.value, ctx.scope))}
      />
      <select
        aria-label="Operator"
        value={node.op}
        disabled={ctx.disabled}
        onChange={(e) =>
          ctx.change(
            setLeafOperator(ctx.root, node.path, e.target.value as LeafOperator, ctx.scope),
          )
        }
      >
        {LEAF_OPERATORS.map((op) => (
          <option key={op} value={op}>
            {OPERATOR_LABELS[op]}
          </option>
        ))}
      </select>
      {node.op === "truthy" ? null : node.op === "exists" ? (
        <select
          aria-label="Value"
          value={String(node.value)}
          disabled={ctx.disabled}
          onChange={(e) => ctx.change(setLeafValue(ctx.root, node.path, e.target.value === "true"))}
        >
          <option value="true">yes (present, not null)</option>
          <option value="false">no (missing or null)</option>
        </select>
      ) : (
        <LeafValue
          node={node}
          ctx={ctx}
          invalid={Boolean(opError)}
          describedBy={error ? errorId : undefined}
        />
      )}
      <NodeActions path={node.path} ctx={ctx} />
      {error ? (
        <div id={errorId} className={`error ${styles.condError}`}>
          {error}
        </div>
      ) : null}
    </div>
  );
}

const VALUE_TYPES: readonly (readonly [ValueType, string])[] = [
  ["string", "text"],
  ["number", "number"],
  ["boolean", "true/false"],
  ["null", "null"],
  ["json", "JSON"],
];

const typeWord = (t: InputType) => (t === "string" ? "text" : t === "array" ? "a list" : t);

function LeafValue({
  node,
  ctx,
  invalid,
  describedBy,
}: {
  node: Extract<CondNode, { kind: "leaf" }>;
  ctx: Ctx;
  invalid: boolean;
  describedBy?: string;
}) {
  const value = node.value;
  const { refType, expected } = leafTypes(ctx.scope, node.ref, node.op);
  const type = shownValueType(value, expected);
  const set = (next: JsonValue) => ctx.change(setLeafValue(ctx.root, node.path, next));
  const hintId = useId();
  // Text as typed, while it is the text of the saved value ("1." is saved as 1 and shown as typed).
  const [draft, setDraft] = useState<{ text: string; for: string } | null>(null);
  const shown = JSON.stringify(value ?? null);
  const hint = expected
    ? `Compared as ${expected === "string" ? "text" : expected === "number" ? "a number" : typeWord(expected)}${refType ? `: ${node.ref} is ${refType === "string" ? "text" : `a ${refType}`}` : ""}${expected !== type && !(expected === "array" && type === "json") ? ` — this value is ${type === "string" ? "text" : type}` : ""}.`
    : undefined;
  const describe = [describedBy, hint ? hintId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <>
      <select
        aria-label="Value type"
        value={type}
        disabled={ctx.disabled}
        onChange={(e) => set(convertValue(value, e.target.value as ValueType))}
      >
        {VALUE_TYPES.map(([t, l]) => (
          <option key={t} value={t}>
            {l}
          </option>
        ))}
      </select>
      {type === "string" || type === "number" ? (
        // One text field for both, so a keystroke that turns text into a number keeps focus.
        <input
          aria-label="Value"
          inputMode={type === "number" ? "decimal" : undefined}
          className={type === "number" ? "mono" : undefined}
          value={draft && draft.for === shown ? draft.text : value === "" ? "" : String(value)}
          disabled={ctx.disabled}
          aria-invalid={invalid || undefined}
          aria-describedby={describe}
          onChange={(e) => {
            const next = typedValue(e.target.value, type, expected);
            setDraft({ text: e.target.value, for: JSON.stringify(next) });
            set(next);
          }}
        />
      ) : type === "boolean" ? (
        <select
          aria-label="Value"
          value={String(value)}
          disabled={ctx.disabled}
          aria-describedby={describe}
          onChange={(e) => set(e.target.value === "true")}
        >
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : type === "json" ? (
        <input
          aria-label="Value (JSON)"
          className="mono"
          value={draft && draft.for === shown ? draft.text : shown}
          disabled={ctx.disabled}
          aria-invalid={invalid || undefined}
          aria-describedby={describe}
          onChange={(e) => {
            const text = e.target.value;
            try {
              const parsed = JSON.parse(text) as JsonValue;
              setDraft({ text, for: JSON.stringify(parsed) });
              set(parsed);
            } catch {
              setDraft({ text, for: shown });
            }
          }}
        />
      ) : null}
      {hint ? (
        <span id={hintId} className={`small muted ${styles.condHint}`}>
          {hint}
        </span>
      ) : null}
    </>
  );
}

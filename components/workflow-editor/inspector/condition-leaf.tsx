"use client";
import { useId, useState } from "react";
import type { TypeScope } from "@/lib/workflow/comparison-types";
import type { InputType } from "@/lib/workflow/input-spec";
import type { JsonValue } from "@/lib/workflow/json";
import {
  convertValue,
  LEAF_OPERATORS,
  leafTypes,
  OPERATOR_LABELS,
  removeNode,
  setLeafOperator,
  setLeafRef,
  setLeafValue,
  shownValueType,
  typedValue,
  wrapNode,
  type CondNode,
  type LeafOperator,
  type NodePath,
  type ValueType,
} from "./condition-model";
import styles from "./inspector.module.css";

/** What every node of the condition builder works with (condition-builder.tsx). */
export interface Ctx {
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

export const key = (path: NodePath) => (path.length ? path.join(".") : "_form");

export function errorFor(ctx: Ctx, path: NodePath): string | undefined {
  return ctx.errors[key(path)];
}

/** Wrap in not / remove, beside every node. */
export function NodeActions({ path, ctx }: { path: NodePath; ctx: Ctx }) {
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

/** One comparison: reference → operator → value, with its typed value input. */
export function LeafView({ node, ctx }: { node: Extract<CondNode, { kind: "leaf" }>; ctx: Ctx }) {
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

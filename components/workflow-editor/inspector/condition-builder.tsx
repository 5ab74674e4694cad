"use client";
import { useId, useState } from "react";
import { JsonField } from "@/components/forms/fields";
import type { TypeScope } from "@/lib/workflow/comparison-types";
import {
  addChild,
  newLeaf,
  removeNode,
  setGroupMode,
  toTree,
  unwrapNot,
  updateNode,
  type CondNode,
} from "./condition-model";
import styles from "./inspector.module.css";
import { LeafView, NodeActions, errorFor, key, type Ctx } from "./condition-leaf";

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

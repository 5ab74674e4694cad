"use client";
import { useId, useRef } from "react";
import { TextField } from "@/components/forms/fields";
import type { TextRenderProps } from "@/components/forms/schema-form";
import { insertTemplate, templateCompletions } from "./references";
import styles from "./inspector.module.css";

/**
 * A text field that may hold `{{ path }}` templates: typing `{{` offers the references in scope
 * (a native <datalist>, so the browser provides the accessible popup), and "Insert reference"
 * puts one at the caret, for textareas too.
 */
export function TemplateField({ paths, ...props }: TextRenderProps & { paths: readonly string[] }) {
  const listId = useId();
  const input = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const completions = props.multiline ? [] : templateCompletions(props.value, paths);
  return (
    <div className={styles.templateField}>
      <TextField
        {...props}
        rows={props.multiline ? 5 : undefined}
        list={completions.length ? listId : undefined}
        inputRef={input}
        spellCheck={false}
      />
      {completions.length ? (
        <datalist id={listId}>
          {completions.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
      ) : null}
      {paths.length && !props.disabled ? (
        <select
          className={styles.insert}
          aria-label={`Insert reference into ${props.label}`}
          value=""
          onChange={(e) => {
            const path = e.target.value;
            if (!path) return;
            const el = input.current;
            const selection = el
              ? {
                  start: el.selectionStart ?? props.value.length,
                  end: el.selectionEnd ?? props.value.length,
                }
              : undefined;
            props.onChange(insertTemplate(props.value, path, selection).text);
          }}
        >
          <option value="">Insert reference…</option>
          {paths.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      ) : null}
    </div>
  );
}

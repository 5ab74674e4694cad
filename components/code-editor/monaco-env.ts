"use client";
/**
 * Monaco from the local `monaco-editor` package — never a CDN (@monaco-editor/loader defaults to
 * jsdelivr, which fails offline). Workers are small local entry files so both bundlers emit them.
 * Imported only from client components loaded with `ssr: false`: monaco touches `self` at import.
 */
import * as monaco from "monaco-editor";
import { loader } from "@monaco-editor/react";

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker };
  }
}

self.MonacoEnvironment = {
  getWorker(_id: string, label: string) {
    if (label === "json")
      return new Worker(new URL("./workers/json.worker.ts", import.meta.url), { type: "module" });
    return new Worker(new URL("./workers/editor.worker.ts", import.meta.url), { type: "module" });
  },
};

loader.config({ monaco });

/**
 * Monaco's "vs" theme with token colours dark enough for 4.5:1 (WCAG AA) on the diff editor's
 * inserted/removed backgrounds too: vs's number green #098658 is 4.6:1 on white but 3.2:1 on its
 * own removed-text red (axe, issue #26.8). The diff backgrounds are lighter than vs's as well.
 */
export const MONACO_THEME = "sluice-light";
monaco.editor.defineTheme(MONACO_THEME, {
  base: "vs",
  inherit: true,
  rules: [
    { token: "string.key.json", foreground: "8a1212" },
    { token: "string.value.json", foreground: "033f80" },
    { token: "string", foreground: "8a1212" },
    { token: "number", foreground: "05603c" },
    { token: "keyword", foreground: "033f80" },
    { token: "keyword.json", foreground: "033f80" },
    { token: "comment", foreground: "3f6b2e" },
  ],
  colors: {
    "editorLineNumber.foreground": "#5c6677",
    "diffEditor.insertedTextBackground": "#c9efd466",
    "diffEditor.removedTextBackground": "#f7c9c966",
    "diffEditor.insertedLineBackground": "#eafaef",
    "diffEditor.removedLineBackground": "#fdeeee",
  },
});

export { monaco };

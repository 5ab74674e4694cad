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

export { monaco };

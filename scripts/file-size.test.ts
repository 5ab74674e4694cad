/**
 * Guard: no non-test source file is over MAX_LINES lines without a written reason (issue #27).
 *
 * A file that is one table, one state machine or one generated thing may say so in its first
 * lines (`// size: <reason>` or `/* size: <reason> *\/`); anything else over the limit is split.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const MAX_LINES = 400;
const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE_ROOTS = [
  "app",
  "components",
  "lib",
  "server",
  "inngest",
  "db/schema",
  "bin",
  "scripts",
];
const SOURCE_EXTENSION = /\.(ts|tsx|css|mjs)$/;
/** How many leading lines may carry the reason (after a license or `"use client"` line). */
const REASON_WINDOW = 5;
const SIZE_REASON = /^\s*(\/\/|\/\*+|\*)\s*size:\s*\S/;

/**
 * Test code rather than product source: test files, fixtures and fast-check arbitraries, the
 * conformance suite (only its own tests import it) and the database test helpers.
 */
function isTestCode(relative: string): boolean {
  const base = path.basename(relative);
  return (
    /\.test\.[^.]+$/.test(base) ||
    /\.arbitraries\.[^.]+$/.test(base) ||
    /fixture/.test(relative) ||
    relative.startsWith("inngest/conformance/") ||
    relative.startsWith("server/testing/") ||
    relative.split("/").includes("migrations")
  );
}

function sourceFiles(dir: string): string[] {
  const entries = readdirSync(path.join(ROOT, dir), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(relative);
    return SOURCE_EXTENSION.test(entry.name) && !isTestCode(relative) ? [relative] : [];
  });
}

function lineCount(text: string): number {
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

function hasSizeReason(text: string): boolean {
  return text.split("\n", REASON_WINDOW).some((line) => SIZE_REASON.test(line));
}

describe("source file sizes", () => {
  it("recognises a written reason only in the first lines", () => {
    expect(hasSizeReason("// size: one table of templates\nexport const x = 1;\n")).toBe(true);
    expect(hasSizeReason('"use client";\n/* size: one state machine */\n')).toBe(true);
    expect(hasSizeReason("/**\n * size: generated from the catalog\n */\n")).toBe(true);
    expect(hasSizeReason("// size:\nexport const x = 1;\n")).toBe(false);
    expect(hasSizeReason(`${"\n".repeat(REASON_WINDOW)}// size: too late\n`)).toBe(false);
    expect(hasSizeReason("// this file's size: is fine\n")).toBe(false);
  });

  it("finds the source files it is meant to guard", () => {
    const files = SOURCE_ROOTS.flatMap(sourceFiles);
    expect(files).toContain("lib/workflow/definition.ts");
    expect(files).toContain("app/globals.css");
    expect(files).not.toContain("lib/workflow/validate.test.ts");
    expect(files).not.toContain("lib/workflow/fixtures.ts");
  });

  it(`has no source file over ${MAX_LINES} lines without a "size:" reason`, () => {
    const offenders = SOURCE_ROOTS.flatMap(sourceFiles)
      .map((file) => {
        const text = readFileSync(path.join(ROOT, file), "utf8");
        return { file, lines: lineCount(text), hasReason: hasSizeReason(text) };
      })
      .filter(({ lines, hasReason }) => lines > MAX_LINES && !hasReason)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${String(lines).padStart(5)}  ${file}`);
    expect(
      offenders,
      `Split these files, or state why one is a single table/state machine/generated thing with` +
        ` a "// size: <reason>" comment in its first ${REASON_WINDOW} lines:\n${offenders.join("\n")}`,
    ).toEqual([]);
  });
});

/**
 * The copy-paste examples of docs/*.md as test cases. Every fenced block must be preceded by a
 * directive comment saying what to do with it — so a new example is either executed or skipped
 * with a reason, never silently ignored:
 *
 *   <!-- doc-test: sh fixture=<name> -->               run every command of the block
 *   <!-- doc-test: node fixture=<name> -->             run the block as an ES module
 *   <!-- doc-test: output fixture=<name>[ status=N]: <command> -->
 *                     the block is the command's documented stdout (JSON compared by shape)
 *   <!-- doc-test: input fixture=<name>: <command> --> the block is fed to the command's stdin
 *   <!-- doc-test: skip: <reason> -->                  not executable (third-party config, …)
 *
 * A `<command>` is shell, or `mcp <tool> <json arguments>` for an MCP tool call.
 */

export interface DocBlock {
  file: string;
  /** 1-based line of the block's first content line. */
  line: number;
  lang: string;
  content: string;
  directive: Directive | null;
  /** 1-based line of the directive comment. */
  directiveLine: number;
}

export type Directive =
  | { kind: "skip"; reason: string }
  | { kind: "sh"; fixture: string }
  | { kind: "node"; fixture: string }
  | { kind: "output" | "input"; fixture: string; status?: number; command: string };

export function parseDirective(text: string): Directive | { error: string } {
  const m = /^doc-test:\s*(\w+)([^:]*)(?::\s*([\s\S]*))?$/.exec(text.trim());
  if (!m) return { error: `not a doc-test directive: ${text.trim()}` };
  const [, kind, attrText, rest] = m;
  const attrs = Object.fromEntries(
    attrText!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split("=") as [string, string]),
  );
  if (kind === "skip") {
    if (!rest?.trim()) return { error: "skip needs a reason: <!-- doc-test: skip: why -->" };
    return { kind, reason: rest.trim() };
  }
  const fixture = attrs.fixture ?? "none";
  if (kind === "sh" || kind === "node") return { kind, fixture };
  if (kind === "output" || kind === "input") {
    if (!rest?.trim()) return { error: `${kind} needs a command after ":"` };
    return {
      kind,
      fixture,
      status: attrs.status ? Number(attrs.status) : undefined,
      command: rest.trim(),
    };
  }
  return { error: `unknown doc-test kind "${kind}"` };
}

/** Fenced blocks of a markdown file, each with the directive comment just above it (if any). */
export function extractBlocks(
  markdown: string,
  file: string,
): (DocBlock | { file: string; line: number; error: string })[] {
  const lines = markdown.split("\n");
  const out: (DocBlock | { file: string; line: number; error: string })[] = [];
  let pending: { text: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = /^<!--\s*(doc-test:[\s\S]*?)\s*-->\s*$/.exec(line);
    if (comment) {
      pending = { text: comment[1]!, line: i + 1 };
      continue;
    }
    const fence = /^(\s*)(`{3,})(.*)$/.exec(line);
    if (fence) {
      const [, , ticks, info] = fence;
      const start = i;
      const body: string[] = [];
      for (i = i + 1; i < lines.length && !lines[i]!.trim().startsWith(ticks!); i++)
        body.push(lines[i]!);
      let directive: Directive | null = null;
      if (pending) {
        const d = parseDirective(pending.text);
        if ("error" in d) out.push({ file, line: pending.line, error: d.error });
        else directive = d;
      }
      out.push({
        file,
        line: start + 2,
        lang: info!.trim().split(/\s+/)[0] ?? "",
        content: body.join("\n"),
        directive,
        directiveLine: pending?.line ?? 0,
      });
      pending = null;
      continue;
    }
    if (line.trim() !== "") pending = null;
  }
  return out;
}

export interface ShellCommand {
  text: string;
  /** 1-based line in the markdown file. */
  line: number;
  /** `X=…` / `export X=…`: state for the commands after it, not a test on its own. */
  isAssignment: boolean;
}

/** Splits a shell block into commands: `\` continuations and open quotes join lines. */
export function splitCommands(content: string, firstLine: number): ShellCommand[] {
  const out: ShellCommand[] = [];
  let current: string[] = [];
  let startLine = 0;
  let quote: string | null = null;
  content.split("\n").forEach((raw, idx) => {
    if (!current.length) {
      if (raw.trim() === "" || raw.trim().startsWith("#")) return;
      startLine = firstLine + idx;
    }
    current.push(raw);
    for (let j = 0; j < raw.length; j++) {
      const c = raw[j]!;
      if (quote) {
        if (c === quote) quote = null;
        else if (c === "\\" && quote === '"') j++;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === "\\") j++;
      else if (c === "#" && (j === 0 || /\s/.test(raw[j - 1]!))) break;
    }
    if (quote || /\\\s*$/.test(raw)) return;
    const text = current.join("\n");
    out.push({
      text,
      line: startLine,
      isAssignment: /^(export\s+)?[A-Za-z_][A-Za-z0-9_]*=/.test(text.trim()),
    });
    current = [];
  });
  if (current.length) out.push({ text: current.join("\n"), line: startLine, isAssignment: false });
  return out;
}

/** The text of a command without its trailing `# comment` (placeholders there are prose). */
export function withoutComments(command: string): string {
  return command
    .split("\n")
    .map((l) => {
      let quote: string | null = null;
      for (let j = 0; j < l.length; j++) {
        const c = l[j]!;
        if (quote) {
          if (c === quote) quote = null;
        } else if (c === "'" || c === '"') quote = c;
        else if (c === "#" && (j === 0 || /\s/.test(l[j - 1]!))) return l.slice(0, j);
      }
      return l;
    })
    .join("\n");
}

/** Marks an object documented as `{…}` or with a trailing `…`: more keys may follow. */
const OPEN = "__doc_open__";

/**
 * A documented JSON body, which elides with `…`: `"…"`-style strings are wildcards (`"run_01…"`
 * matches anything starting `run_01`), `{…}` is any object, and a bare `…` member says the object
 * has more keys than shown.
 */
export function parseDocJson(text: string): unknown {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "…") {
      // `{…}` / `, … }` / `[…]`: an open object (or array) rather than a value.
      out = out.replace(/,\s*$/, "");
      const prev = out.trimEnd().slice(-1);
      if (prev === "[") out += `"${OPEN}"`;
      else out += `${prev === "{" ? "" : ","}"${OPEN}": true`;
    } else out += c;
  }
  return JSON.parse(out);
}

/**
 * Where the real value differs from the documented one: documented keys must exist (and, unless
 * the object is open, no undocumented keys), scalars must be equal, `…` strings match by their
 * prefix and suffix, arrays compare their first element.
 */
export function shapeMismatches(doc: unknown, actual: unknown, at = "$"): string[] {
  if (typeof doc === "string" && doc.includes("…")) {
    const [prefix, suffix] = [doc.slice(0, doc.indexOf("…")), doc.slice(doc.lastIndexOf("…") + 1)];
    return typeof actual === "string" && actual.startsWith(prefix) && actual.endsWith(suffix)
      ? []
      : [`${at}: documented ${JSON.stringify(doc)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(doc)) {
    if (!Array.isArray(actual))
      return [`${at}: documented an array, got ${JSON.stringify(actual)}`];
    const items = doc.filter((d) => d !== OPEN);
    if (!items.length) return [];
    if (!actual.length) return [`${at}: documented items, got an empty array`];
    return items.flatMap((d, i) =>
      i < actual.length ? shapeMismatches(d, actual[i], `${at}[${i}]`) : [`${at}[${i}]: missing`],
    );
  }
  if (doc && typeof doc === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual))
      return [`${at}: documented an object, got ${JSON.stringify(actual)}`];
    const d = doc as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const out: string[] = [];
    for (const [k, v] of Object.entries(d)) {
      if (k === OPEN) continue;
      if (!(k in a)) out.push(`${at}.${k}: documented, but not in the answer`);
      else out.push(...shapeMismatches(v, a[k], `${at}.${k}`));
    }
    if (!(OPEN in d))
      for (const k of Object.keys(a))
        if (!(k in d)) out.push(`${at}.${k}: in the answer, but not documented`);
    return out;
  }
  return Object.is(doc, actual)
    ? []
    : [`${at}: documented ${JSON.stringify(doc)}, got ${JSON.stringify(actual)}`];
}

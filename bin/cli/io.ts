import fs from "node:fs";

/** Reads a file path, or stdin when the path is omitted or "-". */
export async function readInput(path: string | undefined): Promise<string> {
  if (path && path !== "-") return fs.promises.readFile(path, "utf8");
  if (process.stdin.isTTY)
    throw new Error("No input: pass a file path or pipe a definition on stdin");
  return readStdin();
}

/** All of stdin ("" when it is a terminal: nothing was piped). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The final envelope goes to stdout as one JSON document. */
export function printEnvelope(envelope: unknown): void {
  process.stdout.write(JSON.stringify(envelope, null, 2) + "\n");
}

/** One progress event as one NDJSON line: `{ "type": …, … }` on a single line. */
export function ndjsonLine(event: { type: string } & Record<string, unknown>): string {
  return JSON.stringify(event) + "\n";
}

/** Progress goes to stderr, one JSON object per line, so stdout stays one parseable envelope. */
export function progress(event: { type: string } & Record<string, unknown>): void {
  process.stderr.write(ndjsonLine(event));
}

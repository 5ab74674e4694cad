import fs from "node:fs";

/** Reads a file path, or stdin when the path is omitted or "-". */
export async function readInput(path: string | undefined): Promise<string> {
  if (path && path !== "-") return fs.promises.readFile(path, "utf8");
  if (process.stdin.isTTY)
    throw new Error("No input: pass a file path or pipe a definition on stdin");
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The final envelope goes to stdout as one JSON document. */
export function printEnvelope(envelope: unknown): void {
  process.stdout.write(JSON.stringify(envelope, null, 2) + "\n");
}

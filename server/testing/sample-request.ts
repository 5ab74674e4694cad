import { execFileSync } from "node:child_process";

export interface SentSample {
  method: string;
  url: string;
  headers: Headers;
  /** null when the snippet sends no body (GET). */
  body: string | null;
}

/**
 * Runs a sample-request snippet (lib/triggers/samples.ts) with bash, curl replaced by a function
 * that prints its arguments, and returns the request curl would have sent — the openssl
 * signatures and all, exactly as a person pasting the snippet would produce them.
 */
export function runSampleScript(script: string): SentSample {
  const out = execFileSync(
    "bash",
    ["-c", `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${script}`],
    { encoding: "utf8" },
  );
  const args = out.split("\n");
  const headers = new Headers();
  let method = "GET";
  let url = "";
  let body: string | null = null;
  args.forEach((a, i) => {
    const prev = args[i - 1];
    if (prev === "-H") {
      const at = a.indexOf(":");
      headers.set(a.slice(0, at), a.slice(at + 1).trim());
    } else if (prev === "-X") {
      method = a;
      url = args[i + 1]!;
    } else if (prev === "--data") body = a;
  });
  return { method, url, headers, body };
}

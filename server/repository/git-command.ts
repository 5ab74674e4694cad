import "server-only";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseRepositoryUrl } from "@/lib/workflow/repository";
import { resolveOutboundHost, type Resolver } from "@/server/net/outbound-host";
import { SafeFetchError } from "@/server/net/safe-fetch-error";
import {
  runProcess,
  SANDBOX_PATH,
  SCRIPT_KILL_GRACE_MS,
  type ScriptRunResult,
} from "@/server/sandbox/script-runner";

/**
 * Git for repository context (SPEC §3): refs are resolved by fetching them into a bare cache per
 * workspace, and script steps get a checkout cloned from that cache. Git always runs as a
 * subprocess with an argument array, no user or system config, no prompts, no hooks, a protocol
 * allow-list (file, https, ssh) and the script runner's timeout and output caps. Credentials
 * travel in the environment (GIT_CONFIG_*), never on a command line or in a URL.
 */

export const GIT_TIMEOUT_MS = 120_000;

export type RepositoryErrorCode = "ref_not_found" | "fetch_failed" | "blocked" | "checkout_failed";

/** A refusal or failure the workflow's author can act on (bad URL, ref, credentials, host). */
export class RepositoryError extends Error {
  constructor(
    readonly code: RepositoryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RepositoryError";
  }
}

export interface RepositoryAccess {
  url: string;
  /** The value of the workflow's credentialsSecret: an https token (or user:token) or an ssh key. */
  credentials?: string;
  /** The workspace policy's allowed private hosts (as for http steps). */
  allowedPrivateHosts: readonly string[];
  resolver?: Resolver;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface GitInvocation {
  /** `-c` options placed before the subcommand. */
  config: string[];
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const BASE_CONFIG = [
  "protocol.allow=never",
  "protocol.file.allow=always",
  "protocol.https.allow=always",
  "protocol.ssh.allow=always",
  "core.hooksPath=/dev/null",
  "http.followRedirects=false",
  "credential.helper=",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.detachedHead=false",
  "init.defaultBranch=main",
];

/**
 * The environment and options one git call needs. HOME is a fresh temporary directory, so no
 * user configuration, credential store or known_hosts leaks in; it is removed by `cleanup`.
 */
export async function invocation(access?: RepositoryAccess): Promise<GitInvocation> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-git-"));
  const env: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: home,
    LANG: "C",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
  };
  const config = [...BASE_CONFIG];
  const ssh = ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new"];
  const extra: [string, string][] = [];
  const kind = access ? parseRepositoryUrl(access.url) : undefined;
  if (access?.credentials && kind?.ok) {
    const secret = access.credentials.trim();
    if (kind.value.kind === "ssh" && secret.startsWith("-----BEGIN")) {
      const keyFile = path.join(home, "id");
      await fs.writeFile(keyFile, secret + "\n", { mode: 0o600 });
      ssh.push("-i", keyFile, "-o", "IdentitiesOnly=yes");
    } else if (kind.value.kind === "https") {
      const basic = secret.includes(":") ? secret : `x-access-token:${secret}`;
      extra.push([
        "http.extraHeader",
        `Authorization: Basic ${Buffer.from(basic).toString("base64")}`,
      ]);
    }
  }
  // The key path is ours (mkdtemp), never user text: the command line git hands to a shell.
  config.push(`core.sshCommand=${ssh.join(" ")}`);
  extra.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (extra.length) env.GIT_CONFIG_COUNT = String(extra.length);
  return { config, env, cleanup: () => fs.rm(home, { recursive: true, force: true }) };
}

/**
 * The network check for https and ssh URLs, with the same classifier and allow-list as http
 * steps. For https the checked address is pinned with curl's resolve option, so a second DNS
 * answer cannot point git elsewhere; ssh resolves again by itself (best effort).
 */
export async function networkConfig(access: RepositoryAccess): Promise<string[]> {
  const parsed = parseRepositoryUrl(access.url);
  if (!parsed.ok) throw new RepositoryError("blocked", parsed.message);
  const { kind, host, port } = parsed.value;
  if (kind === "file" || !host) return [];
  let addresses;
  try {
    addresses = await resolveOutboundHost(
      host,
      { allowedPrivateHosts: access.allowedPrivateHosts, resolver: access.resolver },
      access.signal,
      access.url,
    );
  } catch (e) {
    if (e instanceof SafeFetchError) throw new RepositoryError("blocked", e.message);
    throw e;
  }
  if (kind !== "https") return [];
  const a = addresses[0]!;
  return [
    `http.curloptResolve=${host}:${port ?? 443}:${a.family === 6 ? `[${a.address}]` : a.address}`,
  ];
}

export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export async function git(
  args: string[],
  opts: { inv: GitInvocation; cwd?: string; extraConfig?: string[]; access?: RepositoryAccess },
): Promise<GitResult> {
  const config = [...opts.inv.config, ...(opts.extraConfig ?? [])].flatMap((c) => ["-c", c]);
  let r: ScriptRunResult;
  try {
    r = await runProcess("git", [...config, ...args], {
      cwd: opts.cwd ?? os.tmpdir(),
      env: opts.inv.env,
      timeoutMs: opts.access?.timeoutMs ?? GIT_TIMEOUT_MS,
      signal: opts.access?.signal,
      killGraceMs: SCRIPT_KILL_GRACE_MS,
    });
  } catch (e) {
    throw new RepositoryError("fetch_failed", `Could not run git: ${(e as Error).message}`);
  }
  const scrub = (s: string) => {
    const secret = opts.access?.credentials;
    return secret ? s.split(secret).join("[redacted]") : s;
  };
  return {
    code: r.exitCode,
    stdout: r.stdout.toString("utf8"),
    stderr: scrub(r.stderr.toString("utf8")),
    timedOut: r.stoppedBy !== null,
  };
}

export function lastLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? "no error output").replace(/^fatal:\s*/, "").slice(0, 500);
}

import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isCommitSha, parseRepositoryUrl } from "@/lib/workflow/repository";
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

interface GitInvocation {
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
async function invocation(access?: RepositoryAccess): Promise<GitInvocation> {
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
async function networkConfig(access: RepositoryAccess): Promise<string[]> {
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

interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

async function git(
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

function lastLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? "no error output").replace(/^fatal:\s*/, "").slice(0, 500);
}

// --- the bare cache --------------------------------------------------------------------------

function cacheDirFor(cacheRoot: string, workspaceId: string, url: string): string {
  const key = createHash("sha256").update(url).digest("hex").slice(0, 32);
  return path.join(cacheRoot, workspaceId, `${key}.git`);
}

/** Touched whenever a cache is used; pruneRepositoryCaches removes caches idle past a window. */
const LAST_USED = "sluice-last-used";

async function markUsed(dir: string): Promise<void> {
  const at = new Date();
  await fs.utimes(path.join(dir, LAST_USED), at, at).catch(async () => {
    await fs.writeFile(path.join(dir, LAST_USED), "").catch(() => undefined);
  });
}

const inProcess = new Map<string, Promise<unknown>>();
const STALE_LOCK_MS = GIT_TIMEOUT_MS * 3 + 60_000;

/**
 * Serializes writers of one workspace's cache: in this process with a promise chain, across
 * processes sharing the data directory with a lock directory (mkdir is atomic); a lock older
 * than any git call can take is left over from a crash and is taken over.
 */
async function withWorkspaceLock<T>(
  cacheRoot: string,
  workspaceId: string,
  fn: () => Promise<T>,
): Promise<T> {
  const key = path.join(cacheRoot, workspaceId);
  const previous = inProcess.get(key) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      await fs.mkdir(cacheRoot, { recursive: true });
      const lock = `${key}.lock`;
      for (;;) {
        try {
          await fs.mkdir(lock);
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
          const stat = await fs.stat(lock).catch(() => null);
          if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS)
            await fs.rm(lock, { recursive: true, force: true });
          else await new Promise((r) => setTimeout(r, 100));
        }
      }
      try {
        return await fn();
      } finally {
        await fs.rm(lock, { recursive: true, force: true });
      }
    });
  inProcess.set(key, run);
  try {
    return await run;
  } finally {
    if (inProcess.get(key) === run) inProcess.delete(key);
  }
}

async function ensureBareCache(dir: string, inv: GitInvocation): Promise<void> {
  if (await fs.stat(path.join(dir, "HEAD")).catch(() => null)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const r = await git(["init", "--bare", "--quiet", dir], { inv });
  if (r.code !== 0)
    throw new RepositoryError(
      "fetch_failed",
      `Could not create the repository cache: ${lastLine(r.stderr)}`,
    );
}

async function commitInCache(dir: string, sha: string, inv: GitInvocation): Promise<boolean> {
  const r = await git(["cat-file", "-e", `${sha}^{commit}`], { inv, cwd: dir });
  return r.code === 0;
}

/**
 * Fetches `ref` from the repository into the cache and returns the commit it names. A full SHA
 * is fetched by id (servers that refuse unadvertised ids: then every branch and tag is fetched
 * and the commit looked up). The commit is kept under refs/sluice/pins/ so it outlives later
 * force-pushes, for checkouts and reruns of runs pinned to it.
 */
async function fetchRef(
  dir: string,
  ref: string,
  access: RepositoryAccess,
  inv: GitInvocation,
): Promise<string> {
  const net = await networkConfig(access);
  const fetch = (refspecs: string[]) =>
    git(
      [
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-recurse-submodules",
        "--no-write-fetch-head",
        "--end-of-options",
        access.url,
        ...refspecs,
      ],
      { inv, cwd: dir, extraConfig: net, access },
    );
  const failed = (r: GitResult): never => {
    if (r.timedOut)
      throw new RepositoryError(
        "fetch_failed",
        `Fetching ${access.url} timed out after ${Math.round((access.timeoutMs ?? GIT_TIMEOUT_MS) / 1000)} s`,
      );
    if (/couldn't find remote ref|not our ref|unadvertised object/i.test(r.stderr))
      throw new RepositoryError(
        "ref_not_found",
        `repository ref '${ref}' not found in ${access.url}`,
      );
    throw new RepositoryError(
      "fetch_failed",
      `Could not fetch ${access.url}: ${lastLine(r.stderr)}`,
    );
  };
  let sha: string;
  if (isCommitSha(ref)) {
    const byId = await fetch([`${ref}:refs/sluice/pins/${ref}`]);
    if (byId.code !== 0) {
      if (byId.timedOut || !/not our ref|unadvertised|couldn't find/i.test(byId.stderr))
        failed(byId);
      const all = await fetch([
        "+refs/heads/*:refs/sluice/heads/*",
        "+refs/tags/*:refs/sluice/tags/*",
      ]);
      if (all.code !== 0) failed(all);
      if (!(await commitInCache(dir, ref, inv)))
        throw new RepositoryError(
          "ref_not_found",
          `repository ref '${ref}' not found in ${access.url}`,
        );
    }
    sha = ref;
  } else {
    const tmpRef = `refs/sluice/fetch/${process.pid}`;
    const r = await fetch([`+${ref}:${tmpRef}`]);
    if (r.code !== 0) failed(r);
    const parsed = await git(["rev-parse", "--verify", "--quiet", `${tmpRef}^{commit}`], {
      inv,
      cwd: dir,
    });
    await git(["update-ref", "-d", tmpRef], { inv, cwd: dir });
    sha = parsed.stdout.trim();
    if (parsed.code !== 0 || !isCommitSha(sha))
      throw new RepositoryError(
        "ref_not_found",
        `repository ref '${ref}' in ${access.url} is not a commit`,
      );
  }
  const pin = await git(["update-ref", `refs/sluice/pins/${sha}`, sha], { inv, cwd: dir });
  if (pin.code !== 0)
    throw new RepositoryError(
      "fetch_failed",
      `Could not record commit ${sha}: ${lastLine(pin.stderr)}`,
    );
  return sha;
}

export interface CacheLocation {
  /** The root of all workspaces' caches (under the data directory). */
  cacheRoot: string;
  workspaceId: string;
}

/** Resolves a branch, tag or commit of the repository to a full commit SHA (SPEC §3). */
export async function resolveRepositoryRef(
  where: CacheLocation,
  access: RepositoryAccess,
  ref: string,
): Promise<string> {
  const dir = cacheDirFor(where.cacheRoot, where.workspaceId, access.url);
  const inv = await invocation(access);
  try {
    return await withWorkspaceLock(where.cacheRoot, where.workspaceId, async () => {
      await ensureBareCache(dir, inv);
      await markUsed(dir);
      return fetchRef(dir, ref, access, inv);
    });
  } finally {
    await inv.cleanup();
  }
}

/**
 * Checks out exactly `sha` at `dest` (which must not exist): a clone sharing the cache's objects,
 * detached at the commit, with `origin` pointing at the real URL. Read-only unless `writable`:
 * every file and directory loses its write bits (scripts run with permissions enforced, see
 * runScript's honorFilePermissions). The commit is fetched again if this cache lacks it (another
 * instance pinned it, or the cache was cleared).
 */
export async function checkoutRepository(
  where: CacheLocation,
  access: RepositoryAccess,
  pin: { ref: string; sha: string },
  dest: string,
  opts: { writable: boolean },
): Promise<void> {
  const dir = cacheDirFor(where.cacheRoot, where.workspaceId, access.url);
  const inv = await invocation(access);
  try {
    const present = (await fs.stat(path.join(dir, "HEAD")).catch(() => null))
      ? await commitInCache(dir, pin.sha, inv)
      : false;
    if (!present) {
      await withWorkspaceLock(where.cacheRoot, where.workspaceId, async () => {
        await ensureBareCache(dir, inv);
        if (await commitInCache(dir, pin.sha, inv)) return;
        const viaRef = await fetchRef(dir, pin.ref, access, inv).catch(() => null);
        if (viaRef !== pin.sha && !(await commitInCache(dir, pin.sha, inv)))
          await fetchRef(dir, pin.sha, access, inv).catch((e: unknown) => {
            throw e instanceof RepositoryError && e.code === "ref_not_found"
              ? new RepositoryError(
                  "checkout_failed",
                  `The run's commit ${pin.sha} is no longer available in ${access.url}`,
                )
              : e;
          });
      });
    }
    await markUsed(dir);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    const step = async (args: string[], cwd?: string) => {
      const r = await git(args, { inv, cwd, access });
      if (r.code !== 0)
        throw new RepositoryError(
          "checkout_failed",
          `Could not check out ${pin.sha.slice(0, 12)}: ${lastLine(r.stderr)}`,
        );
    };
    await step(["clone", "--quiet", "--shared", "--no-checkout", "--", dir, dest]);
    await step(["checkout", "--quiet", "--detach", pin.sha], dest);
    await step(["remote", "set-url", "origin", access.url], dest);
    if (!opts.writable) await setWritable(dest, false);
  } finally {
    await inv.cleanup();
  }
}

async function setWritable(dir: string, writable: boolean): Promise<void> {
  const r = await runProcess("chmod", ["-R", writable ? "u+w" : "a-w", "--", dir], {
    cwd: os.tmpdir(),
    env: { PATH: SANDBOX_PATH },
    timeoutMs: GIT_TIMEOUT_MS,
  });
  if (r.exitCode !== 0)
    throw new RepositoryError(
      "checkout_failed",
      `Could not change the checkout's permissions: ${lastLine(r.stderr.toString("utf8"))}`,
    );
}

/** Removes a checkout, read-only or not. */
export async function removeCheckout(dest: string): Promise<void> {
  if (!(await fs.stat(dest).catch(() => null))) return;
  await setWritable(dest, true);
  await fs.rm(dest, { recursive: true, force: true });
}

/**
 * Removes bare caches not used since `idleSince` (their last-used mark, else the folder's own
 * time), each under its workspace's lock so no fetch races the removal. A checkout made from a
 * cache marks it used first, so a cache in use is never idle for days. Returns how many went.
 */
export async function pruneRepositoryCaches(cacheRoot: string, idleSince: Date): Promise<number> {
  const workspaces = await fs.readdir(cacheRoot, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const ws of workspaces) {
    if (!ws.isDirectory()) continue;
    const wsDir = path.join(cacheRoot, ws.name);
    removed += await withWorkspaceLock(cacheRoot, ws.name, async () => {
      let n = 0;
      for (const name of await fs.readdir(wsDir).catch(() => [] as string[])) {
        if (!name.endsWith(".git")) continue;
        const dir = path.join(wsDir, name);
        const stat =
          (await fs.stat(path.join(dir, LAST_USED)).catch(() => null)) ??
          (await fs.stat(dir).catch(() => null));
        if (!stat || stat.mtimeMs >= idleSince.getTime()) continue;
        await fs.rm(dir, { recursive: true, force: true });
        n++;
      }
      return n;
    });
    await fs.rmdir(wsDir).catch(() => undefined); // only when empty
  }
  return removed;
}

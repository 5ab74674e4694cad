import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { isCommitSha } from "@/lib/workflow/repository";
import {
  git,
  GIT_TIMEOUT_MS,
  lastLine,
  networkConfig,
  RepositoryError,
  type GitInvocation,
  type GitResult,
  type RepositoryAccess,
} from "./git-command";

/**
 * The per-workspace bare caches that refs are fetched into (SPEC §3): where each lives, the lock
 * that serializes its writers, fetching a ref into it, and pruning the idle ones.
 */

export interface CacheLocation {
  /** The root of all workspaces' caches (under the data directory). */
  cacheRoot: string;
  workspaceId: string;
}

export function cacheDirFor(cacheRoot: string, workspaceId: string, url: string): string {
  const key = createHash("sha256").update(url).digest("hex").slice(0, 32);
  return path.join(cacheRoot, workspaceId, `${key}.git`);
}

/** Touched whenever a cache is used; pruneRepositoryCaches removes caches idle past a window. */
const LAST_USED = "sluice-last-used";

export async function markUsed(dir: string): Promise<void> {
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
export async function withWorkspaceLock<T>(
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

export async function ensureBareCache(dir: string, inv: GitInvocation): Promise<void> {
  if (await fs.stat(path.join(dir, "HEAD")).catch(() => null)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const r = await git(["init", "--bare", "--quiet", dir], { inv });
  if (r.code !== 0)
    throw new RepositoryError(
      "fetch_failed",
      `Could not create the repository cache: ${lastLine(r.stderr)}`,
    );
}

export async function commitInCache(
  dir: string,
  sha: string,
  inv: GitInvocation,
): Promise<boolean> {
  const r = await git(["cat-file", "-e", `${sha}^{commit}`], { inv, cwd: dir });
  return r.code === 0;
}

/**
 * Fetches `ref` from the repository into the cache and returns the commit it names. A full SHA
 * is fetched by id (servers that refuse unadvertised ids: then every branch and tag is fetched
 * and the commit looked up). The commit is kept under refs/sluice/pins/ so it outlives later
 * force-pushes, for checkouts and reruns of runs pinned to it.
 */
export async function fetchRef(
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

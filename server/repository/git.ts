import "server-only";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runProcess, SANDBOX_PATH } from "@/server/sandbox/script-runner";
import {
  git,
  GIT_TIMEOUT_MS,
  invocation,
  lastLine,
  RepositoryError,
  type RepositoryAccess,
} from "./git-command";
import {
  cacheDirFor,
  commitInCache,
  ensureBareCache,
  fetchRef,
  markUsed,
  withWorkspaceLock,
  type CacheLocation,
} from "./repository-cache";

/** Repository context for runs (SPEC §3): resolving a ref to a commit, and checkouts of it. */

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

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitFixture, type GitFixture } from "@/server/testing/git-fixture";
import { checkoutRepository, removeCheckout, resolveRepositoryRef } from "./git";
import { RepositoryError } from "./git-command";
import { pruneRepositoryCaches } from "./repository-cache";

/*
 * The git layer on its own, against a bare repository made here:
 *
 *   origin.git: A ── B (main)      tag v1 → A
 *   cache: <root>/<workspace>/<sha256(url)>.git, refs/sluice/pins/<sha> per resolved commit
 */

let repo: GitFixture;
let dir: string;
let origin: string;
let work: string;
let cacheRoot: string;
let a: string;
let b: string;

const git = (cwd: string, ...args: string[]) => repo.git(cwd, ...args);
const commit = (text: string) => repo.commit("FILE", text);

const access = () => ({ url: origin, allowedPrivateHosts: [] });
const where = (workspaceId = "ws_git") => ({ cacheRoot, workspaceId });

beforeAll(() => {
  repo = createGitFixture("sluice-git-test-");
  ({ dir, origin, work } = repo);
  cacheRoot = path.join(dir, "cache");
  a = commit("A");
  git(work, "tag", "-a", "-m", "v1", "v1");
  git(work, "push", "-q", "origin", "v1");
  b = commit("B");
});
afterAll(() => {
  repo?.remove();
});

describe("resolveRepositoryRef", () => {
  it("resolves branches, annotated tags and commit ids, concurrently, through one locked cache", async () => {
    const refs = ["main", "v1", a, "main", b, "v1"];
    const shas = await Promise.all(refs.map((ref) => resolveRepositoryRef(where(), access(), ref)));
    expect(shas).toEqual([b, a, a, b, b, a]);
    // Every resolved commit is pinned in the cache; no lock is left behind.
    const cache = fs.readdirSync(path.join(cacheRoot, "ws_git"))[0]!;
    const pins = git(path.join(cacheRoot, "ws_git", cache), "for-each-ref", "refs/sluice/pins/");
    expect(pins).toContain(a);
    expect(pins).toContain(b);
    expect(fs.readdirSync(cacheRoot).filter((f) => f.endsWith(".lock"))).toEqual([]);
  });

  it("names the ref and the URL when it does not exist", async () => {
    const e = await resolveRepositoryRef(where(), access(), "nope").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RepositoryError);
    expect((e as RepositoryError).code).toBe("ref_not_found");
    expect((e as Error).message).toBe(`repository ref 'nope' not found in ${origin}`);
    const missing = await resolveRepositoryRef(where(), access(), "f".repeat(40)).catch(
      (x: unknown) => x,
    );
    expect((missing as RepositoryError).code).toBe("ref_not_found");
  });

  it("says why a repository cannot be fetched", async () => {
    const e = await resolveRepositoryRef(
      where(),
      { url: path.join(dir, "missing.git"), allowedPrivateHosts: [] },
      "main",
    ).catch((x: unknown) => x);
    expect((e as RepositoryError).code).toBe("fetch_failed");
    expect((e as Error).message).toMatch(/^Could not fetch .*missing\.git: /);
  });
});

describe("checkoutRepository", () => {
  it("checks out exactly the pinned commit, read-only; fetches it again into an empty cache", async () => {
    const dest = path.join(dir, "co1");
    // A fresh workspace cache that never resolved anything: the commit is fetched on demand.
    await checkoutRepository(where("ws_cold"), access(), { ref: "v1", sha: a }, dest, {
      writable: false,
    });
    expect(fs.readFileSync(path.join(dest, "FILE"), "utf8")).toBe("A");
    expect(git(dest, "rev-parse", "HEAD")).toBe(a);
    expect(git(dest, "remote", "get-url", "origin")).toBe(origin);
    expect(fs.statSync(path.join(dest, "FILE")).mode & 0o222).toBe(0);
    expect(fs.statSync(dest).mode & 0o222).toBe(0);
    await removeCheckout(dest);
    expect(fs.existsSync(dest)).toBe(false);

    const rw = path.join(dir, "co2");
    await checkoutRepository(where(), access(), { ref: "main", sha: b }, rw, { writable: true });
    fs.writeFileSync(path.join(rw, "FILE"), "changed");
    await removeCheckout(rw);
  });

  it("keeps a pinned commit after the branch was force-pushed away", async () => {
    const c = commit("C");
    const pinned = await resolveRepositoryRef(where(), access(), "main");
    expect(pinned).toBe(c);
    git(work, "reset", "-q", "--hard", b);
    git(work, "push", "-q", "-f", "origin", "HEAD:main");
    git(origin, "reflog", "expire", "--expire=now", "--all");
    git(origin, "gc", "-q", "--prune=now");
    const dest = path.join(dir, "co3");
    await checkoutRepository(where(), access(), { ref: "main", sha: c }, dest, { writable: false });
    expect(git(dest, "rev-parse", "HEAD")).toBe(c);
    await removeCheckout(dest);
    // A cache that never saw it cannot get it back: the error says so.
    const e = await checkoutRepository(
      where("ws_late"),
      access(),
      { ref: "main", sha: c },
      path.join(dir, "co4"),
      { writable: false },
    ).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(`The run's commit ${c} is no longer available`);
  });
});

describe("pruneRepositoryCaches", () => {
  it("removes caches idle past the window, keeps ones used since, and a removed cache is refetched", async () => {
    const root = path.join(dir, "prune-cache");
    const at = (ws: string) => ({ cacheRoot: root, workspaceId: ws });
    await resolveRepositoryRef(at("ws_idle"), access(), "main");
    await resolveRepositoryRef(at("ws_busy"), access(), "main");
    const cacheOf = (ws: string) =>
      path.join(
        root,
        ws,
        fs.readdirSync(path.join(root, ws)).find((n) => n.endsWith(".git"))!,
      );
    // ws_idle was last used 20 days ago; ws_busy is used again by a checkout now.
    const old = new Date(Date.now() - 20 * 86_400_000);
    const idleCache = cacheOf("ws_idle");
    fs.utimesSync(path.join(idleCache, "sluice-last-used"), old, old);
    fs.utimesSync(path.join(cacheOf("ws_busy"), "sluice-last-used"), old, old);
    const dest = path.join(dir, "co-prune");
    await checkoutRepository(at("ws_busy"), access(), { ref: "main", sha: b }, dest, {
      writable: false,
    });
    await removeCheckout(dest);

    const removed = await pruneRepositoryCaches(root, new Date(Date.now() - 14 * 86_400_000));
    expect(removed).toBe(1);
    expect(fs.existsSync(idleCache)).toBe(false);
    expect(fs.existsSync(path.join(root, "ws_idle"))).toBe(false); // the empty folder went too
    expect(fs.existsSync(cacheOf("ws_busy"))).toBe(true);
    // Nothing is idle any more; a pruned workspace simply fetches again.
    expect(await pruneRepositoryCaches(root, new Date(Date.now() - 14 * 86_400_000))).toBe(0);
    expect(await resolveRepositoryRef(at("ws_idle"), access(), "main")).toBe(
      git(work, "rev-parse", "HEAD"),
    );
  });
});

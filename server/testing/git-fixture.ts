import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A throwaway git setup for repository-context tests: a bare `origin.git` (branch main) and a
 * `work` clone that pushes to it, in a temp folder with its own HOME and no system config.
 *
 *   origin.git (bare)  ◄── push ──  work
 */
export interface GitFixture {
  dir: string;
  origin: string;
  work: string;
  /** Runs git in `cwd` with the fixture's identity; returns trimmed stdout. */
  git(cwd: string, ...args: string[]): string;
  /** Writes `file` in work, commits it, force-pushes to origin's main; returns the commit id. */
  commit(file: string, text: string): string;
  /** Removes the folder (read-only checkouts included). */
  remove(): void;
}

export function createGitFixture(prefix: string): GitFixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const origin = path.join(dir, "origin.git");
  const work = path.join(dir, "work");
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync("git", args, {
      cwd,
      env: {
        ...process.env,
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "T",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "T",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
      encoding: "utf8",
    }).trim();
  git(dir, "init", "-q", "--bare", "-b", "main", origin);
  git(dir, "init", "-q", "-b", "main", work);
  git(work, "remote", "add", "origin", origin);
  return {
    dir,
    origin,
    work,
    git,
    commit(file, text) {
      fs.writeFileSync(path.join(work, file), text);
      git(work, "add", file);
      git(work, "commit", "-q", "-m", text.trim() || file);
      git(work, "push", "-q", "-f", "origin", "HEAD:main");
      return git(work, "rev-parse", "HEAD");
    },
    remove() {
      execFileSync("chmod", ["-R", "u+w", dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

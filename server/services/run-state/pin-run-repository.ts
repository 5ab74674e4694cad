import "server-only";
import os from "node:os";
import path from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs } from "@/db/schema";
import type { Keys } from "@/server/keys";
import type { Resolver } from "@/server/net/outbound-host";
import { resolveRepositoryRef } from "@/server/repository/git";
import { RepositoryError, type RepositoryAccess } from "@/server/repository/git-command";
import type { ServiceConfig } from "../context";
import { appendRunEvents } from "../runs/run-events";
import { MissingSecretsError, resolveSecrets } from "../secrets/resolve-secrets";
import { loadWorkspacePolicy } from "../settings/load-workspace-policy";
import { finishRun } from "./finish-run";

export type PinResult = { ok: true; sha: string | null } | { ok: false; message: string };

/** The bare caches' root: the configured one (data directory) or a temp folder. */
export function repositoryCacheRoot(config: Pick<ServiceConfig, "repositoryCacheDir">): string {
  return config.repositoryCacheDir ?? path.join(os.tmpdir(), "sluice-repository-cache");
}

/**
 * Access to a run's repository for git: the URL, the credentials secret's value and the
 * workspace's private-host allow-list. Internal, for the engine (it acts for the run).
 */
export async function repositoryAccessFor(
  db: Db,
  keys: Keys,
  run: { workspaceId: string; repositoryUrl: string; repositoryCredentialsSecret: string | null },
  extra: Pick<RepositoryAccess, "signal" | "timeoutMs"> & { resolver?: Resolver } = {},
): Promise<RepositoryAccess> {
  const policy = await loadWorkspacePolicy(db, run.workspaceId);
  const name = run.repositoryCredentialsSecret;
  const secrets = name ? await resolveSecrets(db, keys, run.workspaceId, [name]) : {};
  return {
    url: run.repositoryUrl,
    ...(name ? { credentials: secrets[name] } : {}),
    allowedPrivateHosts: policy.allowedPrivateHosts,
    ...extra,
  };
}

/**
 * Resolves the run's repository ref to a commit and pins it (SPEC §3), before step 1. Called in
 * a durable step: a run that already has its SHA (a replay, or a rerun that copied its
 * original's) keeps it. A ref that cannot be resolved fails the run — a user error naming the
 * ref and the URL — and no step runs.
 */
export async function pinRunRepository(
  db: Db,
  keys: Keys,
  config: ServiceConfig,
  runId: string,
  now: () => Date,
  opts: { resolver?: Resolver } = {},
): Promise<PinResult> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run?.repositoryUrl || !run.repositoryRef) return { ok: true, sha: null };
  if (run.repositorySha) return { ok: true, sha: run.repositorySha };
  let sha: string;
  try {
    const access = await repositoryAccessFor(
      db,
      keys,
      { ...run, repositoryUrl: run.repositoryUrl },
      opts,
    );
    sha = await resolveRepositoryRef(
      { cacheRoot: repositoryCacheRoot(config), workspaceId: run.workspaceId },
      access,
      run.repositoryRef,
    );
  } catch (e) {
    if (!(e instanceof RepositoryError || e instanceof MissingSecretsError)) throw e;
    const message =
      e instanceof MissingSecretsError
        ? `The repository's credentialsSecret is missing: ${e.message}`
        : e.message;
    await finishRun(
      db,
      config,
      {
        runId,
        status: "failed",
        error: { code: "repository_unresolved", class: "user", message },
        reason: "repository_unresolved",
      },
      now(),
    );
    return { ok: false, message };
  }
  return db.transaction(async (tx) => {
    const [pinned] = await tx
      .update(runs)
      .set({ repositorySha: sha, updatedAt: now() })
      .where(and(eq(runs.id, runId), isNull(runs.repositorySha)))
      .returning({ id: runs.id });
    if (!pinned) {
      const [again] = await tx
        .select({ sha: runs.repositorySha })
        .from(runs)
        .where(eq(runs.id, runId));
      return { ok: true, sha: again?.sha ?? sha };
    }
    await appendRunEvents(
      tx,
      [
        {
          runId,
          workspaceId: run.workspaceId,
          type: "run.repository_pinned",
          data: { url: run.repositoryUrl, ref: run.repositoryRef, sha },
        },
      ],
      now(),
    );
    return { ok: true, sha };
  });
}

/** The run's repository columns (null when the run is not in the workspace). */
export async function loadRunRepository(db: Db, key: { runId: string; workspaceId: string }) {
  const [run] = await db
    .select({
      workspaceId: runs.workspaceId,
      repositoryUrl: runs.repositoryUrl,
      repositoryRef: runs.repositoryRef,
      repositorySha: runs.repositorySha,
      repositoryCredentialsSecret: runs.repositoryCredentialsSecret,
    })
    .from(runs)
    .where(and(eq(runs.id, key.runId), eq(runs.workspaceId, key.workspaceId)));
  return run ?? null;
}

import "server-only";
import type { CheckResult } from "./checks";

/** What the engine check can see of this process's engine (server/health.ts fills it in). */
export type EngineProbeTarget =
  | {
      kind: "embedded";
      /** This process's embedded executor: undefined when not started. */
      ready: Promise<unknown> | undefined;
      /** Resolves once the executor has synced the app's functions. */
      synced: () => Promise<void>;
      /** Its HTTP health route (loopback). */
      healthUrl: string;
    }
  | { kind: "inngest"; baseUrl: string };

const PENDING = Symbol("pending");

/** Whether a promise has already settled, without waiting for it. */
async function settledNow<T>(p: Promise<T>): Promise<T | typeof PENDING> {
  return Promise.race([p, new Promise<typeof PENDING>((r) => setImmediate(() => r(PENDING)))]);
}

async function answers(url: string, timeoutMs: number): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    await res.body?.cancel();
    return res.status;
  } catch {
    return undefined;
  }
}

/**
 * Embedded: started, synced, and answering on its port. A real Inngest: its `/health` answers
 * (any status below 500 means reachable: Inngest Cloud's API has no such route). Reasons never
 * name the URL (a base URL could carry credentials).
 */
export async function probeEngine(t: EngineProbeTarget, timeoutMs = 1_500): Promise<CheckResult> {
  if (t.kind === "inngest") {
    const status = await answers(`${t.baseUrl}/health`, timeoutMs);
    if (status === undefined) return { ok: false, reason: "Inngest is not reachable" };
    if (status >= 500) return { ok: false, reason: `Inngest answered ${status}` };
    return { ok: true };
  }
  if (!t.ready) return { ok: false, reason: "embedded executor is not running" };
  try {
    if ((await settledNow(t.ready)) === PENDING)
      return { ok: false, reason: "embedded executor is starting" };
    if ((await settledNow(t.synced())) === PENDING)
      return { ok: false, reason: "embedded executor has not synced the app's functions yet" };
  } catch {
    return { ok: false, reason: "embedded executor failed to start" };
  }
  const status = await answers(t.healthUrl, timeoutMs);
  if (status !== 200) return { ok: false, reason: "embedded executor does not answer on its port" };
  return { ok: true };
}

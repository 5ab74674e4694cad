import { createHmac } from "node:crypto";
import { env, type Env } from "../env";
import { loadOrCreateMasterSecret } from "../server/keys";

/**
 * The key that signs executor → app calls. A configured INNGEST_SIGNING_KEY always wins. In
 * production with the embedded executor and no key configured, one is derived from the master
 * secret, so `/api/inngest` never accepts unsigned calls on a deployed app (the executor and the
 * SDK in the same process share it). Development and tests stay in dev mode, like the Inngest
 * Dev Server. Never derived during `next build`.
 */
export function effectiveSigningKey(e: Env = env): string | undefined {
  if (e.INNGEST_SIGNING_KEY) return e.INNGEST_SIGNING_KEY;
  if (
    e.SLUICE_EXECUTOR !== "embedded" ||
    e.NODE_ENV !== "production" ||
    e.NEXT_PHASE === "phase-production-build"
  )
    return undefined;
  const g = globalThis as typeof globalThis & { __sluiceSigningKey?: string };
  if (!g.__sluiceSigningKey) {
    const master = e.SLUICE_SECRET ?? loadOrCreateMasterSecret(e.SLUICE_DATA_DIR);
    g.__sluiceSigningKey = `signkey-prod-${createHmac("sha256", master).update("sluice inngest signing key").digest("hex")}`;
  }
  return g.__sluiceSigningKey;
}

/**
 * The one Inngest client. Where it sends events and who calls its functions is configuration only:
 * - SLUICE_EXECUTOR=embedded (default): the executor inside this process, on
 *   127.0.0.1:SLUICE_EXECUTOR_PORT. Dev mode in development and tests; cloud mode (signed calls)
 *   in production, with INNGEST_SIGNING_KEY or a key derived from the master secret: then
 *   and the executor signs its calls with that key.
 * - SLUICE_EXECUTOR=inngest: the SDK's standard environment (INNGEST_DEV, INNGEST_BASE_URL,
 *   INNGEST_SIGNING_KEY, INNGEST_EVENT_KEY, …) — Dev Server, Inngest Cloud or self-hosted Inngest.
 */
import { Inngest } from "inngest";
import { env, type Env } from "../env";
import { effectiveSigningKey } from "./signing-key";

export const APP_ID = "sluice";

/** Event key the embedded client uses in cloud mode when none is configured (any key is accepted then). */
const EMBEDDED_EVENT_KEY = "sluice-embedded";

export function inngestClientOptions(e: Env): ConstructorParameters<typeof Inngest>[0] {
  if (e.SLUICE_EXECUTOR === "inngest") return { id: APP_ID };
  const signingKey = effectiveSigningKey(e);
  return {
    id: APP_ID,
    baseUrl: `http://127.0.0.1:${e.SLUICE_EXECUTOR_PORT}`,
    isDev: !signingKey,
    ...(signingKey
      ? {
          signingKey,
          signingKeyFallback: e.INNGEST_SIGNING_KEY_FALLBACK,
          // Cloud mode refuses to send without an event key.
          eventKey: e.INNGEST_EVENT_KEY ?? EMBEDDED_EVENT_KEY,
        }
      : e.INNGEST_EVENT_KEY
        ? { eventKey: e.INNGEST_EVENT_KEY }
        : {}),
  };
}

export const inngest = new Inngest(inngestClientOptions(env));

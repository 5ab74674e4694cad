import "server-only";
import { getDb, getDbHandle } from "@/db";
import { inngest } from "@/inngest/client";
import { createLogger } from "@/lib/log";
import { registryParity } from "./services/step-execution/actions/registry";
import { createOutboxDeliverer, type WorkflowEventHook } from "./services/outbox/deliver";
import { startOutboxRelay, type RelayHandle } from "./services/outbox/relay-runner";
import type { OutboxRow } from "./services/outbox/relay-outbox";
import { alertsEventHook } from "./services/alerts/on-run-failed";
import { fireEventTriggers } from "./services/triggers/fire-event-triggers";
import { triggerContext } from "./services/triggers/start-trigger-run";
import { admitterYieldRatio, startWebhookAdmitter } from "./services/triggers/webhook-admitter";
import { getRuntime } from "./runtime";
import { reportScriptSandbox } from "./sandbox/bwrap";
import { SANDBOX_PATH } from "./sandbox/script-runner";

type Global = typeof globalThis & {
  __sluiceBackground?: Promise<RelayHandle>;
  __sluiceEventHooks?: WorkflowEventHook[];
};
const g = globalThis as Global;

/** Hooks that see every workflow event before it is forwarded (event triggers register here). */
export function workflowEventHooks(): WorkflowEventHook[] {
  // What each acts on (see WorkflowEventHook): events no hook wants may skip the relay.
  return (g.__sluiceEventHooks ??= [
    Object.assign(eventTriggerHook, { eventTriggers: true }),
    Object.assign(alertsEventHook, { eventNames: ["run.failed"] }),
  ]);
}

/** Event triggers: every delivered workflow event starts the runs of matching triggers. */
async function eventTriggerHook(row: OutboxRow): Promise<void> {
  if (!row.workspaceId) return;
  const p = row.payload as {
    eventId?: string;
    name?: string;
    data?: unknown;
    source?: unknown;
    at?: string;
  };
  const db = await getDb();
  const rt = getRuntime();
  await fireEventTriggers(
    db,
    (workspaceId) => triggerContext({ db, ...rt }, workspaceId, "events"),
    row.workspaceId,
    {
      id: p.eventId ?? row.id,
      name: p.name ?? row.name,
      data: p.data ?? {},
      source: (p.source ?? {}) as Record<string, unknown>,
      at: p.at,
    },
  );
}

/**
 * Background work of the app process (once per process, whatever the executor): the outbox relay
 * that turns committed messages into Inngest events, and the webhook admitter. Also checks that
 * every step type has a handler, so a mismatch fails loudly at start-up.
 */
export function startBackground(waitForExecutor?: () => Promise<void>): Promise<RelayHandle> {
  if (g.__sluiceBackground) return g.__sluiceBackground;
  const log = createLogger({ component: "background" });
  const parity = registryParity();
  if (parity.missing.length || parity.extra.length) {
    log.error("step handler registry does not match the catalog", parity);
    throw new Error(
      `step handler registry mismatch: missing ${parity.missing.join(", ") || "-"}; extra ${parity.extra.join(", ") || "-"}`,
    );
  }
  void reportScriptSandbox(getRuntime().config.scriptSandbox, log, SANDBOX_PATH);
  g.__sluiceBackground = (async () => {
    const { db, driver } = await getDbHandle();
    // On a fresh database the executor learns the functions at its first sync: a run.start sent
    // before that would trigger nothing. Later boots know them from the database already.
    if (waitForExecutor) await waitForExecutor();
    const relay = startOutboxRelay({
      db,
      deliver: createOutboxDeliverer((events) => inngest.send(events), workflowEventHooks()),
      log: log.child({ component: "outbox" }),
    });
    // Webhook deliveries accepted into the inbox become runs here (their start messages then
    // go through the relay).
    const admitter = startWebhookAdmitter({
      db,
      ...getRuntime(),
      log,
      yieldRatio: admitterYieldRatio(driver),
    });
    return {
      stop: async () => {
        await admitter.stop();
        await relay.stop();
      },
      drain: async () => {
        await admitter.drain();
        await relay.drain();
      },
    };
  })();
  g.__sluiceBackground.catch((e) => {
    log.error("background start failed; retrying in 5 s", { err: e });
    g.__sluiceBackground = undefined;
    setTimeout(() => void startBackground(waitForExecutor).catch(() => undefined), 5_000).unref();
  });
  return g.__sluiceBackground;
}

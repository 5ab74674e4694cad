/**
 * Cron triggers. Each scan fires every tick that fell due since the previous scan (and, at start,
 * within `cronCatchUpMs` before it — a short restart does not lose a tick) but never a tick from
 * before the function was first synced. A tick is fired by inserting its claim row
 * (function, cron, tick) in the same transaction as the run: with several executors on one
 * database, exactly one insert wins, so each tick starts one run.
 */
import { Cron } from "croner";
import { sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import { execRows } from "../../db/client";
import { executorEvents } from "../../db/schema/executor";
import { inTx, type ExecutorContext } from "./context";
import type { EventPayload } from "./events";
import { parseCron } from "./function-config";
import { createExecution } from "./lifecycle";
import { ulid } from "../../lib/ids";

const MAX_TICKS_PER_SCAN = 100;

export interface CronScheduler {
  /** Scans now (tests call it after moving the clock; the loop calls it on its own). */
  scan(): Promise<number>;
  stop(): void;
}

export function startCron(ex: ExecutorContext, opts: { autoStart?: boolean } = {}): CronScheduler {
  let lastScan = ex.clock.now() - ex.opts.cronCatchUpMs;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<number> | undefined;
  const parsed = new LRUCache<string, Cron>({ max: 1_000 });

  const cronFor = (text: string) => {
    let c = parsed.get(text);
    if (!c) {
      const { expression, timezone } = parseCron(text);
      c = new Cron(expression, { timezone, paused: true });
      parsed.set(text, c);
    }
    return c;
  };

  async function scanOnce(): Promise<number> {
    const now = ex.clock.now();
    const from = lastScan;
    let fired = 0;
    const crons = ex.registry.crons();
    if (crons.length) {
      for (const { fn, cron } of crons) {
        const c = cronFor(cron);
        const since = Math.max(from, fn.createdAt);
        let tick = c.nextRun(new Date(since));
        for (let n = 0; tick && tick.getTime() <= now && n < MAX_TICKS_PER_SCAN; n++) {
          const at = tick.getTime();
          if (await fireTick(ex, fn.id, cron, at)) fired++;
          tick = c.nextRun(tick);
        }
      }
    }
    lastScan = now;
    return fired;
  }

  function scan(): Promise<number> {
    // One scan at a time; a caller arriving mid-scan waits for it and then scans again.
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(scanOnce);
    running = next;
    return next;
  }

  function schedule() {
    if (stopped) return;
    clearTimeout(timer);
    const now = ex.clock.now();
    let next = now + ex.opts.pollIntervalMs * 4;
    for (const { cron } of ex.registry.crons()) {
      const t = cronFor(cron).nextRun(new Date(now))?.getTime();
      if (t !== undefined && t < next) next = t;
    }
    timer = setTimeout(loop, Math.max(10, next - now + 5));
    timer.unref?.();
  }

  function loop() {
    scan()
      .catch((e) => ex.log.error("cron scan failed", { err: e }))
      .finally(schedule);
  }

  // A manual clock jump re-scans at once (the loop's timer was computed for the old time).
  const auto = opts.autoStart !== false;
  const off = auto ? ex.clock.onChange(() => !stopped && loop()) : () => {};
  if (auto) loop();

  return {
    scan,
    stop() {
      stopped = true;
      off();
      clearTimeout(timer);
    },
  };
}

/** Claims and fires one tick; false when another executor (or an earlier scan) already did. */
async function fireTick(
  ex: ExecutorContext,
  functionId: string,
  cron: string,
  at: number,
): Promise<boolean> {
  return inTx(ex, async (c) => {
    const fn = ex.registry.get(functionId);
    if (!fn || fn.status !== "active") return false;
    const claimed = await execRows(
      c.tx,
      sql`insert into executor_cron_claims (function_id, cron, tick_at)
          values (${functionId}, ${cron}, ${new Date(at).toISOString()}::timestamptz)
          on conflict do nothing returning function_id`,
    );
    if (!claimed.length) return false;
    const eventId = ulid(c.now);
    const event: EventPayload = {
      name: "inngest/scheduled.timer",
      data: { cron },
      id: eventId,
      ts: at,
    };
    await c.tx
      .insert(executorEvents)
      .values({ id: eventId, name: event.name, payload: event, receivedAt: new Date(c.now) });
    const created = await createExecution(c, { fn, event, eventId, cronTick: at });
    if ("runId" in created) {
      await execRows(
        c.tx,
        sql`update executor_cron_claims set run_id = ${created.runId}
            where function_id = ${functionId} and cron = ${cron} and tick_at = ${new Date(at).toISOString()}::timestamptz`,
      );
    }
    c.afterCommit(() =>
      ex.log.info("cron tick fired", { functionId, cron, tick: new Date(at).toISOString() }),
    );
    return true;
  });
}

/**
 * The worker loop: lease due jobs up to the concurrency limit, run each (an SDK call, a wake-up,
 * a timeout), renew the leases of those in flight, and sleep until woken. Wake-ups come from this
 * process (a transaction enqueued work: latency), from a timer for the earliest known future job,
 * from the manual clock in tests, and from a poll interval (other processes, expired leases).
 */
import type { ExecutorContext } from "./context";
import { runCallJob, runTimeoutJob, runWakeJob } from "./driver";
import { expirePause } from "./pauses";
import { inTx } from "./context";
import {
  claimJobs,
  claimLimitedJobs,
  LostLeaseError,
  nextDueAt,
  releaseJob,
  renewLeases,
  type Job,
} from "./queue";
import { completeJobAndLoadExecution } from "./execution-state";
import { saveExecution } from "./execution-save";

export interface Worker {
  wake(at?: number): void;
  /** Resolves when the loop has stopped and in-flight jobs have settled. */
  stop(): Promise<void>;
  inFlight(): number;
}

export function startWorker(ex: ExecutorContext): Worker {
  const inflight = new Map<number, { slot: { job: Job }; done: Promise<void> }>();
  let stopped = false;
  let signal: (() => void) | undefined;
  let signalled = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let lastLimitedScan = 0;
  let lastDueScan = 0;

  const poke = () => {
    signalled = true;
    signal?.();
  };

  function wake(at?: number) {
    if (stopped) return;
    const now = ex.clock.now();
    if (at === undefined || at <= now) return poke();
    if (at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timerAt = Infinity;
        // Timers and Date.now() can disagree by a millisecond: if the job is not due yet when the
        // loop looks, it must re-arm from the queue instead of waiting for the next poll.
        lastDueScan = 0;
        poke();
      },
      Math.min(at - now + 1, 2 ** 31 - 1),
    );
    timer.unref?.();
  }

  // A clock jump (tests) invalidates the timer's arithmetic: drop it and look for the next due
  // job again at once.
  const unsubscribe = ex.clock.onChange(() => {
    clearTimeout(timer);
    timerAt = Infinity;
    lastDueScan = 0;
    poke();
  });
  const heartbeat = setInterval(
    () => {
      const jobs = [...inflight.values()].map((f) => f.slot.job);
      renewLeases(ex, jobs).catch((e) => ex.log.warn("lease renewal failed", { err: e }));
    },
    Math.max(50, Math.floor(ex.opts.leaseMs / 3)),
  );
  heartbeat.unref?.();

  /** Max discoveries one slot runs back to back before the run goes through the queue again. */
  const HANDOFF_CHAIN = 100;

  async function handle(first: Job, slot: { job: Job }) {
    let job = first;
    try {
      if (job.claims > 1)
        ex.log.warn("job re-run after its lease expired", {
          jobId: job.id,
          runId: job.runId,
          kind: job.kind,
          attempt: job.attempt,
        });
      switch (job.kind) {
        case "call": {
          for (let chain = 1; ; chain++) {
            const next = await runCallJob(ex, job, chain < HANDOFF_CHAIN && !stopped);
            if (!next) return;
            job = next;
            slot.job = next; // the heartbeat renews the lease of the job now in flight
            if (stopped) {
              await releaseJob(ex, next, ex.clock.now());
              return;
            }
          }
        }
        case "wake":
          return await runWakeJob(ex, job);
        case "pause_timeout":
          return await inTx(ex, async (c) => {
            const s = await completeJobAndLoadExecution(c, job);
            if (!s) return;
            await expirePause(c, s, job);
            await saveExecution(c, s);
          });
        case "run_timeout":
          return await runTimeoutJob(ex, job);
      }
    } catch (e) {
      if (e instanceof LostLeaseError) {
        ex.log.debug("result dropped: lease lost", { jobId: job.id, runId: job.runId });
        return;
      }
      // A bug or a database failure: put the job back with a delay instead of spinning on it.
      ex.log.error("job handler failed; the job will be retried", {
        jobId: job.id,
        runId: job.runId,
        kind: job.kind,
        err: e,
      });
      await releaseJob(
        ex,
        job,
        ex.clock.now() + Math.min(60_000, 1_000 * 2 ** Math.min(job.claims, 6)),
      ).catch((err) =>
        ex.log.error("could not release job (its lease will expire)", { jobId: job.id, err }),
      );
    }
  }

  function dispatch(job: Job) {
    const slot = { job };
    const done = handle(job, slot).finally(() => {
      inflight.delete(job.id);
      poke();
    });
    inflight.set(job.id, { slot, done });
  }

  const loop = (async () => {
    while (!stopped) {
      signalled = false;
      let claimed = 0;
      try {
        const free = ex.opts.concurrency - inflight.size;
        if (free > 0) {
          const jobs = await claimJobs(ex, free);
          for (const j of jobs) dispatch(j);
          claimed += jobs.length;
          const limitedUsed = ex.registry.all().some((f) => f.concurrency.length > 0);
          const room = ex.opts.concurrency - inflight.size;
          const now = Date.now();
          if (room > 0 && (limitedUsed || now - lastLimitedScan > ex.opts.pollIntervalMs)) {
            lastLimitedScan = now;
            const limited = await claimLimitedJobs(ex, room);
            for (const j of limited) dispatch(j);
            claimed += limited.length;
          }
        }
        if (claimed > 0 && inflight.size < ex.opts.concurrency) continue;
        // Future jobs enqueued here already set a timer; this catches those of other processes
        // (and of a previous life of this one) precisely instead of at the next poll.
        if (!signalled && Date.now() - lastDueScan >= ex.opts.pollIntervalMs) {
          lastDueScan = Date.now();
          const at = await nextDueAt(ex);
          if (at !== undefined) wake(at);
        }
      } catch (e) {
        if (stopped) break;
        ex.log.error("worker loop error", { err: e });
      }
      if (stopped) break;
      if (!signalled) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ex.opts.pollIntervalMs);
          t.unref?.();
          signal = () => {
            clearTimeout(t);
            resolve();
          };
        });
        signal = undefined;
      }
    }
  })();

  return {
    wake,
    inFlight: () => inflight.size,
    async stop() {
      stopped = true;
      poke();
      clearTimeout(timer);
      clearInterval(heartbeat);
      unsubscribe();
      await loop;
      await Promise.allSettled([...inflight.values()].map((f) => f.done));
    },
  };
}

import "server-only";

export interface LoopHandle {
  stop(): Promise<void>;
  /** Runs a pass now and resolves once nothing is left to do (tests, benchmarks). */
  drain(): Promise<void>;
}

/**
 * A background worker loop of this process (the outbox relay, the webhook admitter): a pass runs
 * when `subscribe`'s signal fires (work committed here) and every `pollMs` otherwise (other
 * processes, retries). A pass calls `step` while it says there may be more; a signal during a
 * pass queues one more pass. Errors go to `onError` and the loop carries on; it never dies.
 */
export function startSignalledLoop(opts: {
  /** One unit of work; true when more may be waiting right away. `draining`: skip any pauses. */
  step: (ctx: { draining: boolean }) => Promise<boolean>;
  onError: (e: unknown) => void;
  /** Registers the wake-up signal; returns the unsubscribe. */
  subscribe: (kick: () => void) => () => void;
  pollMs: number;
}): LoopHandle {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let draining = false;
  const pass = async () => {
    do {
      again = false;
      try {
        while (!stopped && (await opts.step({ draining }))) {
          // keep going while there is work
        }
      } catch (e) {
        opts.onError(e);
      }
    } while (again && !stopped);
  };
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = null;
    });
  };
  const unsubscribe = opts.subscribe(kick);
  const timer = setInterval(kick, opts.pollMs);
  timer.unref?.();
  kick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      await running;
    },
    async drain() {
      draining = true;
      try {
        kick();
        while (running) await running;
      } finally {
        draining = false;
      }
    },
  };
}

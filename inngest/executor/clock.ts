/**
 * Scheduling time. Timers, backoffs, wait expiries, dedup windows and cron ticks read this clock,
 * so tests can move time forward instead of sleeping. Leases use the database clock (real time):
 * moving the schedule clock must never make an in-flight request look abandoned.
 */
export interface Clock {
  now(): number;
  /** Called whenever time jumps (manual clocks), so waiting loops re-check what is due. */
  onChange(listener: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  onChange: () => () => {},
};

export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and wakes every listener. */
  advance(ms: number): void;
  /** Moves time forward to `ms` since the epoch (never backwards). */
  advanceTo(ms: number): void;
}

/** Real time plus an offset that only grows: tests jump ahead; time never runs backwards. */
export function manualClock(): ManualClock {
  let offset = 0;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of listeners) l();
  };
  const clock: ManualClock = {
    now: () => Date.now() + offset,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    advance(ms) {
      if (ms < 0) throw new Error("a manual clock only moves forward");
      offset += ms;
      notify();
    },
    advanceTo(ms) {
      clock.advance(Math.max(0, ms - clock.now()));
    },
  };
  return clock;
}

/**
 * When each outbox relay loop of this process last finished a pass, for the readiness probe: a
 * relay that stopped, or whose passes keep failing, stops beating. On globalThis because Next
 * evaluates modules several times per process.
 */
const g = globalThis as typeof globalThis & { __sluiceRelayBeats?: Map<symbol, number> };
const beats = (g.__sluiceRelayBeats ??= new Map());

/** Registers a relay loop; `beat()` after every successful pass, `stop()` when it ends. */
export function relayHeartbeat(now: () => number = Date.now): { beat(): void; stop(): void } {
  const id = Symbol("relay");
  // A pass in flight when the relay stops finishes after stop(); its beat must not re-register.
  let stopped = false;
  return {
    beat: () => {
      if (!stopped) beats.set(id, now());
    },
    stop: () => {
      stopped = true;
      beats.delete(id);
    },
  };
}

/** The newest pass of any running relay (epoch ms), or undefined when none is running or none has passed yet. */
export function lastRelayBeat(): number | undefined {
  let last: number | undefined;
  for (const t of beats.values()) if (last === undefined || t > last) last = t;
  return last;
}

/** Whether a relay loop is registered in this process at all (started, maybe not passed yet). */
export function relayRunning(): boolean {
  return beats.size > 0;
}

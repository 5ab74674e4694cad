import "server-only";

type Global = typeof globalThis & { __sluiceOutboxWake?: Set<() => void> };
const g = globalThis as Global;
const listeners = (g.__sluiceOutboxWake ??= new Set());

/** In-process hint that new outbox rows exist (the relay also polls, for other processes). */
export function wakeOutboxRelay(): void {
  for (const l of listeners) l();
}

export function onOutboxWake(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

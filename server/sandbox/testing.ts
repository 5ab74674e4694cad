import fs from "node:fs/promises";

/**
 * Test helper: host pids of the live processes in a pid namespace, named as a sandboxed script
 * sees it (`readlink /proc/self/ns/pid`, e.g. `pid:[4026532841]`). Pids a script prints are its
 * namespace's own, meaningless on the host; the namespace is what tells whether it is gone.
 */
export async function processesInNamespace(ns: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    // A process that exited meanwhile is not alive; nor is a zombie waiting for the host's init
    // to reap it (the sandbox's own init, reparented there, is one for a moment).
    const link = await fs.readlink(`/proc/${entry}/ns/pid`).catch(() => null);
    if (link !== ns.trim()) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state && state !== "Z" && state !== "X") found.push(Number(entry));
  }
  return found;
}

/** Waits (polling, bounded) until no process is left in the namespace; true if none is. */
export async function namespaceEmptied(ns: string, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if ((await processesInNamespace(ns)).length === 0) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

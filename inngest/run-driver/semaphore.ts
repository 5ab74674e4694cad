/**
 * A FIFO semaphore for steps inside one run (constraints.maxParallel). Deterministic under
 * durable replay: waiters are served in the order they asked, and slots free up in step
 * completion order, which the executor replays identically.
 */
export class Semaphore {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

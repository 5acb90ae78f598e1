/**
 * A readers–writer gate inside the engine process: worker cycles pass it shared, the finality
 * watcher exclusively, so a reorg is never undone under a worker that is still building on
 * the receipts it took away. Writers are served in arrival order (a waiting writer holds back
 * later readers), so a reorg is handled as soon as the running cycles end.
 *
 * Kept here rather than taken from a package: it is the two methods the engine needs, and
 * the lock libraries on npm model mutexes or semaphores, which would need the same wrapping.
 */
export class ReorgGate {
  private readers = 0;
  private writing = false;
  private readonly waiting: { exclusive: boolean; start: () => void }[] = [];

  shared<T>(fn: () => Promise<T>): Promise<T> {
    return this.enter(false, fn);
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.enter(true, fn);
  }

  private async enter<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T> {
    if (!this.canStart(exclusive)) await new Promise<void>((start) => this.waiting.push({ exclusive, start }));
    else this.take(exclusive);
    try {
      return await fn();
    } finally {
      if (exclusive) this.writing = false;
      else this.readers--;
      this.wake();
    }
  }

  private canStart(exclusive: boolean): boolean {
    if (this.writing || this.waiting.length) return false;
    return exclusive ? this.readers === 0 : true;
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.writing = true;
    else this.readers++;
  }

  private wake(): void {
    while (this.waiting.length && !this.writing) {
      const next = this.waiting[0]!;
      if (next.exclusive && this.readers > 0) return;
      this.waiting.shift();
      this.take(next.exclusive);
      next.start();
      if (next.exclusive) return;
    }
  }
}

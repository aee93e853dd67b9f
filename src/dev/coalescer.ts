/**
 * Runs `task` once for each burst of requests: the first request opens a window of `windowMs`
 * and every request within it joins the same run. A request while the task runs gives exactly
 * one more run after it, so a change arriving mid-run is never lost and never run twice.
 */
export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly windowMs: number,
    private readonly task: () => Promise<void>,
  ) {}

  request(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => this.run(), this.windowMs);
  }

  /** Runs the task now (the first run, a run nobody has to wait a window for) and resolves when it is done. */
  async runNow(): Promise<void> {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    return this.run();
  }

  /** No run starts after this; resolves once the one in progress, if any, has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private run(): Promise<void> {
    this.timer = undefined;
    this.running = (async () => {
      try {
        await this.task();
      } finally {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.request();
        }
      }
    })();
    return this.running;
  }
}

import { ApiError } from './errors.ts';

/**
 * At most `active` tasks at once and `waiting` queued behind them; past that a caller is turned
 * away at once with a 503 to retry, instead of piling up memory and latency.
 */
export class Gate {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly active: number,
    private readonly waiting: number,
    private readonly what = 'work',
  ) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.active) {
      if (this.queue.length >= this.waiting)
        throw new ApiError('service_busy', `Too much ${this.what} at once; retry in a second`, {
          headers: {
            'retry-after': '1',
          },
        });
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

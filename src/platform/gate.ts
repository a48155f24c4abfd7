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

/**
 * A gate shared by organizations: `active` tasks at once, `waiting` queued behind them, and no
 * organization holding more than `perOrganization` of those places (composing or queued). An
 * organization past its places is told to slow down (429) rather than filling the queue, so the
 * 503 of a full queue is left for a node that many organizations fill together. A freed slot
 * goes to the organizations in turn, so one organization's queued tasks never make another's
 * wait behind all of them.
 */
export class OrganizationGate {
  private running = 0;
  private waitingCount = 0;
  /** Queued tasks by organization; the Map's order is the turn (served organizations move last). */
  private readonly queues = new Map<string, Array<() => void>>();
  private readonly held = new Map<string, number>();

  constructor(
    private readonly active: number,
    private readonly waiting: number,
    private readonly perOrganization: number,
    private readonly what = 'work',
  ) {}

  /** Places an organization holds now (tests, metrics). */
  holding(organizationId: string): number {
    return this.held.get(organizationId) ?? 0;
  }

  async run<T>(organizationId: string, fn: () => Promise<T>): Promise<T> {
    const held = this.holding(organizationId);
    if (held >= this.perOrganization)
      throw new ApiError(
        'rate_limited',
        `At most ${this.perOrganization} ${this.what} of one organization at once; retry in a second`,
        { headers: { 'retry-after': '1' } },
      );
    if (this.running >= this.active && this.waitingCount >= this.waiting)
      throw new ApiError('service_busy', `Too much ${this.what} at once; retry in a second`, {
        headers: { 'retry-after': '1' },
      });
    this.held.set(organizationId, held + 1);
    try {
      if (this.running < this.active) this.running++;
      else {
        this.waitingCount++;
        await new Promise<void>((resolve) => {
          const queue = this.queues.get(organizationId) ?? [];
          queue.push(resolve);
          this.queues.set(organizationId, queue);
        });
      }
      try {
        return await fn();
      } finally {
        this.next();
      }
    } finally {
      const left = this.holding(organizationId) - 1;
      if (left > 0) this.held.set(organizationId, left);
      else this.held.delete(organizationId);
    }
  }

  /** Hands the freed slot to the first organization in turn, which then goes to the back. */
  private next(): void {
    const first = this.queues.entries().next();
    if (first.done) {
      this.running--;
      return;
    }
    const [org, queue] = first.value;
    const resolve = queue.shift()!;
    this.queues.delete(org);
    if (queue.length > 0) this.queues.set(org, queue);
    this.waitingCount--;
    resolve();
  }
}

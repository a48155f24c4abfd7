import type { Db, Executor } from './db/index.ts';

/** The one channel every node listens on; the payload names what changed. */
const CHANNEL = 'pod_changes';

/**
 * Tells every node that a kind of shared data changed, so that per-process caches of it are dropped:
 * the writer's own node at once after its commit (`changed`), the other nodes when the database
 * delivers the notification its transaction sent (`announce`, delivered on commit, never on
 * rollback). A node whose listening connection drops forgets everything it cached.
 */
export class ChangeFeed {
  private readonly handlers = new Map<string, Array<(key?: string) => void>>();
  private listening = false;

  constructor(private readonly db: Db) {}

  /**
   * `handler` gets the key of a keyed change (`topic:key`, e.g. `order:Order_…` sent by a trigger),
   * and no key when everything of the topic may have changed (a missed notification).
   */
  on(topic: string, handler: (key?: string) => void): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
    if (this.listening) return;
    this.listening = true;
    this.db.listen(
      CHANNEL,
      (payload) => this.changed(payload),
      () => {
        for (const list of this.handlers.values()) for (const h of list) h();
      },
    );
  }

  /** Inside the writer's transaction. */
  async announce(tx: Executor, topic: string): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, topic]);
  }

  /** On this node, once the writer committed; `payload` is a topic or `topic:key`. */
  changed(payload: string): void {
    const colon = payload.indexOf(':');
    const topic = colon < 0 ? payload : payload.slice(0, colon);
    const key = colon < 0 ? undefined : payload.slice(colon + 1);
    for (const h of this.handlers.get(topic) ?? []) h(key);
  }
}

/**
 * A per-process read-through cache of values other writers invalidate through a `ChangeFeed`.
 * A load that started before a `clear` is not stored, so a value read from a snapshot older than
 * the change cannot outlive it. `maxAgeMs` bounds how stale a value can get if a notification is
 * ever lost without the connection dropping.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private generation = 0;
  /** Loads under way in this generation, by key. */
  private loading = new Map<string, Promise<V | null>>();
  /** Keys a transaction of this node is changing: not stored until their change is announced. */
  private readonly held = new Map<string, number>();
  private sweepAt = 1024;

  constructor(private readonly opts: { maxEntries: number; maxAgeMs: number }) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.at < this.opts.maxAgeMs) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Loads the missing keys with one call; `load` returns what exists among them. */
  async getMany(keys: string[], load: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    const out = new Map<string, V>();
    const missing: string[] = [];
    const joined: Array<[string, Promise<V | null>]> = [];
    for (const k of keys) {
      const v = this.get(k);
      const shared = v === undefined ? this.loading.get(k) : undefined;
      if (v !== undefined) out.set(k, v);
      else if (shared) joined.push([k, shared]);
      else missing.push(k);
    }
    if (missing.length > 0) {
      const generation = this.generation;
      const loads = this.loading;
      const batch = load(missing);
      const mine = new Map<string, Promise<V | null>>();
      for (const k of missing) {
        const one = batch.then((found) => found.get(k) ?? null);
        mine.set(k, this.share(k, one));
      }
      try {
        for (const [k, v] of await batch) {
          out.set(k, v);
          if (generation === this.generation) this.set(k, v);
        }
      } finally {
        for (const [k, p] of mine) if (loads.get(k) === p) loads.delete(k);
      }
    }
    for (const [k, p] of joined) {
      const v = await p;
      if (v !== null) out.set(k, v);
    }
    return out;
  }

  async getOne(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const shared = this.loading.get(key);
    if (shared) return shared;
    const generation = this.generation;
    const loads = this.loading;
    const loading = this.share(key, load());
    try {
      const value = await loading;
      if (value !== null && generation === this.generation && !this.isHeld(key)) this.set(key, value);
      return value;
    } finally {
      if (loads.get(key) === loading) loads.delete(key);
    }
  }

  /**
   * Readers that miss a key while it is being loaded wait for that load instead of sending their
   * own (a cold burst sends one read per key). Only loads of the current generation are shared,
   * and none of a held key: a reader after a change never gets a read that started before it.
   */
  private share(key: string, loading: Promise<V | null>): Promise<V | null> {
    loading.catch(() => {});
    if (!this.isHeld(key)) this.loading.set(key, loading);
    return loading;
  }

  /** Something changed: loads already under way are neither stored nor shared. */
  private nextGeneration(): void {
    this.generation++;
    if (this.loading.size > 0) this.loading = new Map();
  }

  /**
   * A transaction of this node is changing `key`: drop it and store no read of it until `delete`
   * (its committed change was announced) or `ms` later (the transaction rolled back). Reads in
   * between go to the database, so the writer's client reads its own write.
   */
  hold(key: string, ms = 5000): void {
    this.nextGeneration();
    this.entries.delete(key);
    // A rolled-back change is never announced: its key leaves when read again, or in this sweep.
    if (this.held.size >= this.sweepAt) {
      const now = Date.now();
      for (const [k, until] of this.held) if (until <= now) this.held.delete(k);
      this.sweepAt = Math.max(1024, this.held.size * 2);
    }
    this.held.set(key, Date.now() + ms);
  }

  /** One key changed (a committed change was announced). */
  delete(key: string): void {
    this.nextGeneration();
    this.entries.delete(key);
    this.held.delete(key);
  }

  private isHeld(key: string): boolean {
    const until = this.held.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.held.delete(key);
    return false;
  }

  private set(key: string, value: V): void {
    // Oldest first: Map keeps insertion order.
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at: Date.now() });
  }

  clear(): void {
    this.nextGeneration();
    this.entries.clear();
  }
}

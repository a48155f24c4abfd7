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
  private readonly handlers = new Map<string, Array<() => void>>();
  private listening = false;

  constructor(private readonly db: Db) {}

  on(topic: string, handler: () => void): void {
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

  /** On this node, once the writer committed. */
  changed(topic: string): void {
    for (const h of this.handlers.get(topic) ?? []) h();
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
    for (const k of keys) {
      const v = this.get(k);
      if (v === undefined) missing.push(k);
      else out.set(k, v);
    }
    if (missing.length === 0) return out;
    const generation = this.generation;
    const loaded = await load(missing);
    for (const [k, v] of loaded) {
      out.set(k, v);
      if (generation === this.generation) this.set(k, v);
    }
    return out;
  }

  async getOne(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const value = await load();
    if (value !== null && generation === this.generation) this.set(key, value);
    return value;
  }

  private set(key: string, value: V): void {
    // Oldest first: Map keeps insertion order.
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at: Date.now() });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

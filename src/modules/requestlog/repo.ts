import type { Db, Executor } from '../../platform/db/index.ts';
import { uuidV7Time } from '../../platform/ids.ts';
import { type Entry, type PackedRecord, PackedWriter, packedId, unpack } from './packed.ts';

export interface RequestRecord extends PackedRecord {
  organizationId: string;
  requestBody: unknown;
  responseBody: unknown;
  /** Epoch milliseconds: a number, not a Date, since every request makes one. */
  at: number;
}

export interface RequestLogRow {
  seq: string;
  request_id: string;
  organization_id: string;
  key_id: string | null;
  key_hint: string | null;
  key_name: string | null;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  error_code: string | null;
  request_body: unknown;
  response_body: unknown;
  created_at: Date;
}

export interface RequestLogFilter {
  /** 2, 4 or 5: the first digit of the status. */
  statusClass?: number;
  /** Part of the path, matched anywhere in it, any case. */
  path?: string;
  keyId?: string;
  requestId?: string;
  /** Requests older than this one (the next page). */
  beforeSeq?: string;
  limit: number;
  /** Batches one page may read before it stops and says how far back it searched. */
  scanBatches?: number;
}

export interface RequestLogPage {
  rows: RequestLogRow[];
  /** Where the next page starts; null when every older request was searched. */
  next: string | null;
  /** Set when the search stopped before the page was full: the oldest time it looked at. */
  searchedTo?: Date;
}

/** A stored batch: packed (migration 0021), or JSON text when written before it (0018). */
interface Batch {
  id: string;
  organization_id: string;
  entries: string | null;
  packed: Uint8Array | null;
}
const entriesOf = (b: Batch): Entry[] => (b.packed ? unpack(b.packed) : (JSON.parse(b.entries!) as Entry[]));
const BATCH_COLUMNS = 'b.id::text AS id, b.organization_id, b.entries, b.packed';

/** A batch holds fewer requests than this, so a request's address is batch id × 1000 + index. */
export const SEQ_PER_BATCH = 1000;
/** Batches one page may read: a search that matches rarely stops there and offers to go on. */
const SCAN_BATCHES = 2000;
const CHUNK = 50;

const seqOf = (batchId: string, idx: number) => (BigInt(batchId) * BigInt(SEQ_PER_BATCH) + BigInt(idx)).toString();
function splitSeq(seq: string): { batch: string; idx: number } {
  const n = BigInt(seq);
  return { batch: (n / BigInt(SEQ_PER_BATCH)).toString(), idx: Number(n % BigInt(SEQ_PER_BATCH)) };
}

/** One organization's requests waiting to be written as one batch row, packed as they come. */
export class PendingBatch {
  private readonly packed = new PackedWriter();
  count = 0;
  /** Epoch ms of the newest request: the batch's created_at. */
  newest = 0;
  /** Errors keep their whole record: their bodies go to request_log_errors. */
  readonly errors: Array<{ idx: number; record: RequestRecord }> = [];
  constructor(readonly organizationId: string) {}

  add(r: RequestRecord): void {
    const at = r.at;
    if (r.status >= 400) this.errors.push({ idx: this.count, record: r });
    this.packed.add(r, at);
    this.count++;
    if (at > this.newest) this.newest = at;
  }

  bytes(): Buffer {
    return this.packed.bytes();
  }
}

function matches(e: Entry, f: RequestLogFilter, pathLower: string | undefined): boolean {
  if (f.statusClass && Math.floor(e[4] / 100) !== f.statusClass) return false;
  if (f.keyId && e[1] !== f.keyId) return false;
  if (f.requestId && e[0] !== f.requestId) return false;
  if (pathLower && !e[3].toLowerCase().includes(pathLower)) return false;
  return true;
}

function toRow(b: Batch, idx: number, e: Entry): RequestLogRow {
  return {
    seq: seqOf(b.id, idx),
    request_id: e[0],
    organization_id: b.organization_id,
    key_id: e[1],
    key_hint: null,
    key_name: null,
    method: e[2],
    path: e[3],
    status: e[4],
    latency_ms: e[5],
    error_code: e[6],
    request_body: null,
    response_body: null,
    created_at: new Date(e[7]),
  };
}

/** Adds the key's hint and name and an error's bodies: one query each, for a page of rows. */
async function complete(ex: Executor, rows: RequestLogRow[]): Promise<RequestLogRow[]> {
  const keyIds = [...new Set(rows.flatMap((r) => (r.key_id ? [r.key_id] : [])))];
  const errorSeqs = rows.filter((r) => r.status >= 400).map((r) => r.seq);
  const [keys, bodies] = await Promise.all([
    keyIds.length ? ex.query('SELECT id, hint, name FROM api_keys WHERE id = ANY($1::text[])', [keyIds]) : [],
    errorSeqs.length
      ? ex.query(
          'SELECT seq::text AS seq, request_body, response_body FROM request_log_errors WHERE seq = ANY($1::bigint[])',
          [errorSeqs],
        )
      : [],
  ]);
  const keyById = new Map(keys.map((k) => [k.id as string, k]));
  const bodyBySeq = new Map(bodies.map((b) => [b.seq as string, b]));
  for (const r of rows) {
    const k = r.key_id ? keyById.get(r.key_id) : undefined;
    r.key_hint = k?.hint ?? null;
    r.key_name = k?.name ?? null;
    const b = bodyBySeq.get(r.seq);
    if (b) {
      r.request_body = b.request_body;
      r.response_body = b.response_body;
    }
  }
  return rows;
}

/**
 * Which returned id is which batch's. Identities are drawn in the order the rows are inserted, and
 * the rows go in the order of the batches, so an organization's ids, ascending, are its batches in
 * order (one organization may fill several batches in one write).
 */
function batchIds(batches: PendingBatch[], ids: Array<{ id: string; organization_id: string }>): string[] {
  const byOrg = new Map<string, bigint[]>();
  for (const x of ids) {
    const list = byOrg.get(x.organization_id) ?? [];
    list.push(BigInt(x.id));
    byOrg.set(x.organization_id, list);
  }
  for (const list of byOrg.values()) list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return batches.map((b) => {
    const id = byOrg.get(b.organizationId)?.shift();
    if (id === undefined) throw new Error(`request log: no batch row came back for ${b.organizationId}`);
    return id.toString();
  });
}

/** A request id as a packed batch holds it and as a JSON one does: one of them, or neither. */
const idSearch = (requestId: string | undefined) =>
  requestId ? [packedId(requestId), JSON.stringify(requestId)] : [null, null];

/** All SQL of the request log. */
export const requestLogRepo = {
  /**
   * One row per batch, in one statement (a busy organization may fill several). The log's commit does not wait for its WAL to reach the disk:
   * a database crash may lose the last fraction of a second of log rows (never an order), and the
   * orders' own commits do not queue behind the log's disk flushes.
   */
  async insertMany(db: Db, batches: PendingBatch[]): Promise<void> {
    if (batches.length === 0) return;
    // One batch (the many small writes of a quiet node) takes plain parameters: unnest costs PGlite
    // ~0.2 ms of planning and copying per write. Several go as one bytea cut by offsets: as an array
    // the drivers would write every byte of every batch as hex.
    const one = batches.length === 1;
    const bytes = batches.map((b) => b.bytes());
    let offset = 1;
    const params = one
      ? [batches[0].organizationId, new Date(batches[0].newest), bytes[0]]
      : [
          batches.map((b) => b.organizationId),
          batches.map((b) => new Date(b.newest)),
          Buffer.concat(bytes),
          bytes.map((x) => (offset += x.length) - x.length),
          bytes.map((x) => x.length),
        ];
    const insert = one
      ? 'INSERT INTO request_log_batches (organization_id, created_at, packed) SELECT $1::text, $2::timestamptz, $3::bytea'
      : `INSERT INTO request_log_batches (organization_id, created_at, packed)
      SELECT u.o, u.c, substring($3::bytea FROM u.s FOR u.l)
      FROM unnest($1::text[], $2::timestamptz[], $4::int[], $5::int[]) AS u(o, c, s, l)`;
    if (!batches.some((b) => b.errors.length > 0)) {
      // One statement, one round trip: set_config(…, true) lasts until this statement's own commit.
      await db.query(`${insert} WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL`, params);
      return;
    }
    await db.tx(async (ex) => {
      await ex.query('SET LOCAL synchronous_commit = off');
      const ids = await ex.query<{ id: string; organization_id: string }>(
        `${insert} RETURNING id::text AS id, organization_id`,
        params,
      );
      const idOf = batchIds(batches, ids);
      const errors = batches.flatMap((b, i) => b.errors.map((e) => ({ ...e, seq: seqOf(idOf[i], e.idx) })));
      const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
      await ex.query(
        `INSERT INTO request_log_errors (seq, organization_id, request_id, request_body, response_body, created_at)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::timestamptz[])`,
        [
          errors.map((e) => e.seq),
          errors.map((e) => e.record.organizationId),
          errors.map((e) => e.record.requestId),
          errors.map((e) => json(e.record.requestBody)),
          errors.map((e) => json(e.record.responseBody)),
          errors.map((e) => new Date(e.record.at)),
        ],
      );
    });
  },

  /**
   * An organization's requests, newest first, read batch by batch until the page is full. A search
   * that rarely matches stops after SCAN_BATCHES batches and returns where to go on from.
   */
  async list(ex: Executor, orgId: string, f: RequestLogFilter): Promise<RequestLogPage> {
    if (f.requestId?.includes('\u0000')) return { rows: [], next: null };
    const from = f.beforeSeq ? splitSeq(f.beforeSeq) : null;
    const pathLower = f.path?.toLowerCase();
    const rows: RequestLogRow[] = [];
    // The first read includes the batch the page starts in; later reads go on below the last batch.
    let cursor = from ? (BigInt(from.batch) + 1n).toString() : null;
    let scanned = 0;
    for (;;) {
      const batches = await ex.query<Batch & Record<string, unknown>>(
        `SELECT ${BATCH_COLUMNS} FROM request_log_batches b
         WHERE b.organization_id = $1 AND ($2::bigint IS NULL OR b.id < $2::bigint)
           AND ($3::bytea IS NULL OR position($3::bytea IN b.packed) > 0 OR strpos(b.entries, $4::text) > 0)
         ORDER BY b.id DESC LIMIT ${CHUNK}`,
        [orgId, cursor, ...idSearch(f.requestId)],
      );
      for (const b of batches) {
        const entries = entriesOf(b);
        const top = from && b.id === from.batch ? from.idx : entries.length;
        for (let i = top - 1; i >= 0; i--) {
          if (!matches(entries[i], f, pathLower)) continue;
          rows.push(toRow(b, i, entries[i]));
          if (rows.length === f.limit) return { rows: await complete(ex, rows), next: rows[rows.length - 1].seq };
        }
        scanned++;
        cursor = b.id;
        if (scanned >= (f.scanBatches ?? SCAN_BATCHES))
          return { rows: await complete(ex, rows), next: seqOf(b.id, 0), searchedTo: new Date(entries[0][7]) };
      }
      if (batches.length < CHUNK) return { rows: await complete(ex, rows), next: null };
    }
  },

  async get(ex: Executor, orgId: string, seq: string): Promise<RequestLogRow | null> {
    const { batch, idx } = splitSeq(seq);
    const [b] = await ex.query<Batch & Record<string, unknown>>(
      `SELECT ${BATCH_COLUMNS} FROM request_log_batches b WHERE b.id = $1::bigint AND b.organization_id = $2`,
      [batch, orgId],
    );
    const entry = b ? entriesOf(b)[idx] : undefined;
    if (!b || !entry) return null;
    return (await complete(ex, [toRow(b, idx, entry)]))[0];
  },

  /**
   * The operator's support lookup across organizations. Errors are indexed by request id. Other
   * requests are searched in the batches written around the id's own time when it is one of ours
   * (UUID version 7), else in the newest SCAN_BATCHES batches.
   */
  async byRequestId(
    ex: Executor,
    requestId: string,
  ): Promise<Array<RequestLogRow & { organization_name: string | null }>> {
    // No stored id holds a NUL (HTTP headers cannot carry one), and PostgreSQL refuses it in text.
    if (requestId.includes('\u0000')) return [];
    const at = uuidV7Time(requestId);
    const batches = await ex.query<Batch & Record<string, unknown>>(
      `SELECT ${BATCH_COLUMNS} FROM request_log_batches b
       WHERE (position($1::bytea IN b.packed) > 0 OR strpos(b.entries, $3::text) > 0)
         AND ($2::timestamptz IS NULL OR b.created_at BETWEEN $2::timestamptz - interval '1 minute' AND $2::timestamptz + interval '15 minutes')
         AND b.id IN (SELECT n.id FROM request_log_batches n ORDER BY n.id DESC
           LIMIT CASE WHEN $2::timestamptz IS NULL THEN ${SCAN_BATCHES} END)
       ORDER BY b.id DESC LIMIT 20`,
      [packedId(requestId), at === null ? null : new Date(at), JSON.stringify(requestId)],
    );
    // Errors are indexed by request id: their batches, however old, in one query.
    const errorBatches = await ex.query<Batch & Record<string, unknown>>(
      `SELECT ${BATCH_COLUMNS} FROM request_log_batches b
       WHERE b.id IN (SELECT e.seq / ${SEQ_PER_BATCH} FROM request_log_errors e WHERE e.request_id = $1
         ORDER BY e.seq DESC LIMIT 20)`,
      [requestId],
    );
    const found = new Map<string, RequestLogRow>();
    for (const b of [...batches, ...errorBatches])
      entriesOf(b).forEach((e, i) => {
        if (e[0] === requestId) found.set(seqOf(b.id, i), toRow(b, i, e));
      });
    const rows = await complete(
      ex,
      [...found.values()].sort((a, b) => b.created_at.getTime() - a.created_at.getTime()).slice(0, 20),
    );
    const orgIds = [...new Set(rows.map((r) => r.organization_id))];
    const names = orgIds.length
      ? await ex.query<{ id: string; name: string }>('SELECT id, name FROM organizations WHERE id = ANY($1::text[])', [
          orgIds,
        ])
      : [];
    const nameOf = new Map(names.map((n) => [n.id, n.name]));
    return rows.map((r) => ({ ...r, organization_name: nameOf.get(r.organization_id) ?? null }));
  },

  /** Deletes batches and errors older than `before` in slices, so a large backlog never holds one long lock. */
  async purgeBefore(ex: Executor, before: Date, slice = 5000): Promise<number> {
    let total = 0;
    for (const table of ['request_log_batches', 'request_log_errors']) {
      const key = table === 'request_log_batches' ? 'id' : 'seq';
      for (;;) {
        const rows = await ex.query(
          `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE created_at < $1 LIMIT $2) RETURNING 1`,
          [before, slice],
        );
        if (table === 'request_log_batches') total += rows.length;
        if (rows.length < slice) break;
      }
    }
    return total;
  },
};

import type { Executor } from '../../platform/db/index.ts';

export interface RequestRecord {
  requestId: string;
  organizationId: string;
  keyId: string | null;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  errorCode: string | null;
  requestBody: unknown;
  responseBody: unknown;
  createdAt: Date;
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
  /** Part of the path, matched anywhere in it. */
  path?: string;
  keyId?: string;
  requestId?: string;
  /** Rows older than this sequence number (the next page). */
  beforeSeq?: string;
  limit: number;
}

const SELECT = `SELECT r.seq::text AS seq, r.request_id, r.organization_id, r.key_id, k.hint AS key_hint, k.name AS key_name,
  r.method, r.path, r.status, r.latency_ms, r.error_code, r.request_body, r.response_body, r.created_at
  FROM request_log r LEFT JOIN api_keys k ON k.id = r.key_id`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** All SQL of the request log. */
export const requestLogRepo = {
  /**
   * One INSERT for the whole batch, from one array per column: the same statement text whatever
   * the batch's size, so the database parses it once (a VALUES list of n rows is a new text for
   * every n).
   */
  async insertMany(ex: Executor, rows: RequestRecord[]): Promise<void> {
    if (rows.length === 0) return;
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    await ex.query(
      `INSERT INTO request_log (request_id, organization_id, key_id, method, path, status, latency_ms, error_code,
        request_body, response_body, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[],
         $8::text[], $9::jsonb[], $10::jsonb[], $11::timestamptz[])`,
      [
        rows.map((r) => r.requestId),
        rows.map((r) => r.organizationId),
        rows.map((r) => r.keyId),
        rows.map((r) => r.method),
        rows.map((r) => r.path),
        rows.map((r) => r.status),
        rows.map((r) => r.latencyMs),
        rows.map((r) => r.errorCode),
        rows.map((r) => json(r.requestBody)),
        rows.map((r) => json(r.responseBody)),
        rows.map((r) => r.createdAt),
      ],
    );
  },

  async list(ex: Executor, orgId: string, f: RequestLogFilter): Promise<RequestLogRow[]> {
    const where = ['r.organization_id = $1'];
    const params: unknown[] = [orgId];
    const add = (sql: (n: number) => string, v: unknown) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.statusClass) add((n) => `r.status >= $${n} * 100 AND r.status < ($${n} + 1) * 100`, f.statusClass);
    if (f.path) add((n) => `r.path ILIKE '%' || $${n} || '%'`, likeEscape(f.path));
    if (f.keyId) add((n) => `r.key_id = $${n}`, f.keyId);
    if (f.requestId) add((n) => `r.request_id = $${n}`, f.requestId);
    if (f.beforeSeq) add((n) => `r.seq < $${n}::bigint`, f.beforeSeq);
    params.push(f.limit);
    return ex.query<RequestLogRow & Record<string, unknown>>(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY r.seq DESC LIMIT $${params.length}`,
      params,
    );
  },

  async get(ex: Executor, orgId: string, seq: string): Promise<RequestLogRow | null> {
    const rows = await ex.query<RequestLogRow & Record<string, unknown>>(
      `${SELECT} WHERE r.organization_id = $1 AND r.seq = $2::bigint`,
      [orgId, seq],
    );
    return rows[0] ?? null;
  },

  /** The operator's support lookup: every organization's requests with this id. */
  async byRequestId(
    ex: Executor,
    requestId: string,
  ): Promise<Array<RequestLogRow & { organization_name: string | null }>> {
    return ex.query<RequestLogRow & { organization_name: string | null } & Record<string, unknown>>(
      `SELECT x.*, o.name AS organization_name FROM (${SELECT} WHERE r.request_id = $1 ORDER BY r.seq DESC LIMIT 20) x
       LEFT JOIN organizations o ON o.id = x.organization_id ORDER BY x.seq::bigint DESC`,
      [requestId],
    );
  },

  /** Deletes rows older than `before` in slices, so a large backlog never holds one long lock. */
  async purgeBefore(ex: Executor, before: Date, slice = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await ex.query<{ seq: string }>(
        `DELETE FROM request_log WHERE seq IN (SELECT seq FROM request_log WHERE created_at < $1 LIMIT $2) RETURNING seq`,
        [before, slice],
      );
      total += rows.length;
      if (rows.length < slice) return total;
    }
  },
};

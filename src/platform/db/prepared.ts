import { createHash } from 'node:crypto';

const names = new Map<string, string | null>();

/**
 * Marks a statement of a hot path to be prepared on PostgreSQL: parsed once per connection instead
 * of on every run, and planned on every run with its values (`plan_cache_mode`, set on each
 * connection in postgres.ts). Returns the text unchanged, so a repo writes
 * `ex.query(prepared('…'), params)`.
 */
export function prepared(sql: string): string {
  if (!names.has(sql)) names.set(sql, `p_${createHash('sha1').update(sql).digest('base64url')}`);
  return sql;
}

/** The prepared statement's name, or undefined to run it unnamed. */
export function statementName(sql: string): string | undefined {
  return names.get(sql) ?? undefined;
}

/**
 * A migration changed a table under a prepared `SELECT *` ("cached plan must not change result
 * type"): this process runs the statement unnamed from now on.
 */
export function isStalePlan(err: unknown, sql: string): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code !== '0A000' || !/cached plan must not change result type/.test(String(e.message))) return false;
  names.set(sql, null);
  return true;
}

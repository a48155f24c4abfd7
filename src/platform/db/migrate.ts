import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './types.ts';

export const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', '..', 'migrations');

export interface Migration {
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

/** A digest of all migrations: test templates are rebuilt when it changes. */
export function migrationsDigest(dir = MIGRATIONS_DIR): string {
  const h = createHash('sha256');
  for (const m of loadMigrations(dir)) h.update(m.name).update(m.sql);
  return h.digest('hex').slice(0, 16);
}

/**
 * Applies pending migrations in order, each in its own transaction. An advisory lock keeps two
 * nodes of a rolling deploy from applying the same file twice.
 */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const applied: string[] = [];
  for (const m of loadMigrations(dir)) {
    const done = await db.tx(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(727274)');
      const rows = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [m.name]);
      if (rows.length > 0) return false;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
      return true;
    });
    if (done) applied.push(m.name);
  }
  return applied;
}

/** Splits a migration on `;` at line ends; migrations keep function bodies out of the files. */
export function splitStatements(sql: string): string[] {
  return sql
    .replace(/--[^\n]*/g, '')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';

/**
 * Opaque, tamper-evident keyset cursors, encrypted together with the list they belong to
 * (AES-256-GCM under a key derived from SECRET_KEY): a partner can neither read the position (a
 * platform-wide sequence number would tell the service's volume) nor make or edit one; an edited
 * cursor, or one from another list, is `400 invalid_cursor`. Nodes sharing SECRET_KEY read each
 * other's cursors.
 */
export class Cursors {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHash('sha256').update(`pod-cursors:${secret}`).digest();
  }

  encode(scope: string, position: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify([scope, position]), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  decode<T>(scope: string, cursor: string | undefined): T | null {
    if (cursor === undefined || cursor === '') return null;
    const invalid = () =>
      new ApiError('invalid_cursor', 'cursor is not one this list issued; take it unchanged from nextCursor');
    const raw = /^[A-Za-z0-9_-]{40,2000}$/.test(cursor) ? Buffer.from(cursor, 'base64url') : null;
    if (!raw || raw.length < 29) throw invalid();
    let parsed: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      parsed = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || parsed[0] !== scope) throw invalid();
    return parsed[1] as T;
  }
}

export interface PageRequest {
  cursor?: string;
  limit?: number;
}

export const DEFAULT_PAGE_SIZE = 50;

/** What a repo needs for a keyset query: the last seen sequence number and the page size. */
export interface Keyset {
  after: number | null;
  limit: number;
}

export function keyset(cursors: Cursors, scope: string, req: PageRequest): Keyset {
  const after = cursors.decode<number>(scope, req.cursor);
  if (after !== null && !Number.isSafeInteger(after)) throw new ApiError('invalid_cursor', 'cursor is malformed');
  return { after, limit: req.limit ?? DEFAULT_PAGE_SIZE };
}

/** `nextCursor` is set exactly when the page is full (spec: a final page may be empty). */
export function pageOf<R extends { seq: number }, T>(
  cursors: Cursors,
  scope: string,
  ks: Keyset,
  rows: R[],
  map: (row: R, index: number) => T,
): { items: T[]; nextCursor: string | null } {
  const last = rows[rows.length - 1];
  return {
    items: rows.map(map),
    nextCursor: rows.length === ks.limit && last ? cursors.encode(scope, last.seq) : null,
  };
}

type PageItems<R, T> = { item: (row: R) => T } | { items: (rows: R[]) => Promise<T[]> | T[] };

/**
 * A list endpoint's answer, `{<plural>: [...], nextCursor}`, newest first on a keyset: the cursor
 * of the request, the repo query for it (`load`), then the answer's items, row by row (`item`) or
 * for the whole page at once (`items`: what the rows refer to is loaded in one query). The cursor
 * belongs to `scope` (default: the plural): a cursor of another list is `400 invalid_cursor`.
 */
export async function listPage<K extends string, R extends { seq: number }, T>(
  cursors: Cursors,
  req: PageRequest,
  list: { plural: K; scope?: string; load: (ks: Keyset) => Promise<R[]> } & PageItems<R, T>,
): Promise<{ [P in K]: T[] } & { nextCursor: string | null }> {
  const scope = list.scope ?? list.plural;
  const ks = keyset(cursors, scope, req);
  const rows = await list.load(ks);
  const items = 'item' in list ? rows.map(list.item) : await list.items(rows);
  const page = pageOf(cursors, scope, ks, rows, (_row, i) => items[i]);
  return { [list.plural]: page.items, nextCursor: page.nextCursor } as { [P in K]: T[] } & {
    nextCursor: string | null;
  };
}

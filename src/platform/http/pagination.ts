import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';

/**
 * Opaque, tamper-evident keyset cursors: the position is signed together with the list it belongs
 * to, so an edited cursor, or one from another list, is `400 invalid_cursor`.
 */
export class Cursors {
  constructor(private readonly secret: string) {}

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  encode(scope: string, position: unknown): string {
    const payload = Buffer.from(JSON.stringify([scope, position])).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode<T>(scope: string, cursor: string | undefined): T | null {
    if (cursor === undefined || cursor === '') return null;
    const invalid = () =>
      new ApiError(400, 'invalid_cursor', 'cursor is not one this list issued; take it unchanged from nextCursor');
    const [payload, sig, extra] = cursor.split('.');
    if (!payload || !sig || extra !== undefined) throw invalid();
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
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
  if (after !== null && !Number.isSafeInteger(after)) throw new ApiError(400, 'invalid_cursor', 'cursor is malformed');
  return { after, limit: req.limit ?? DEFAULT_PAGE_SIZE };
}

/** `nextCursor` is set exactly when the page is full (spec: a final page may be empty). */
export function pageOf<R extends { seq: number }, T>(
  cursors: Cursors,
  scope: string,
  ks: Keyset,
  rows: R[],
  map: (row: R) => T,
): { items: T[]; nextCursor: string | null } {
  const last = rows[rows.length - 1];
  return {
    items: rows.map(map),
    nextCursor: rows.length === ks.limit && last ? cursors.encode(scope, last.seq) : null,
  };
}

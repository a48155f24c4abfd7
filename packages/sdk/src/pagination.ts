/** A list page: the items under the plural name and `nextCursor` (null on the last page). */
export type PageOf<K extends string, T> = { [P in K]: T[] } & { nextCursor: string | null };

/**
 * A paginated list. Iterate it to get every item across pages (`for await (const order of
 * client.orders.list())`); it follows `nextCursor` as the server gives it and never builds a
 * cursor itself. Nothing is fetched until iteration or `firstPage()` starts.
 */
export class Paginator<T, P extends { nextCursor: string | null } = { nextCursor: string | null }>
  implements AsyncIterable<T>
{
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<P>,
    private readonly key: string,
    private readonly startCursor?: string,
  ) {}

  /** Every page in order, the first included (a last page may be empty). */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      const items = (page as unknown as Record<string, unknown>)[this.key];
      if (Array.isArray(items)) yield* items as T[];
    }
  }

  /** Only the first page (its `nextCursor` included). */
  firstPage(): Promise<P> {
    return this.fetchPage(this.startCursor);
  }

  /** Collects items, at most `max` of them (default: all). */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const out: T[] = [];
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

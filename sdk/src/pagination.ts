/**
 * Cursor pagination: `for await (const e of client.events.list({ status: 'failed' }))` walks
 * every page; `.page()` gives one page (with `next_cursor`), `.pages()` iterates whole pages.
 */
export class PageIterator<Item, Page extends { next_cursor: string | null }> implements AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly itemsOf: (page: Page) => readonly Item[],
    private readonly startCursor?: string,
  ) {}

  /** One page: the first, or the one at `cursor` (a `next_cursor` from an earlier page). */
  page(cursor: string | undefined = this.startCursor): Promise<Page> {
    return this.fetchPage(cursor);
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor = this.startCursor;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item of every page, in one array (mind the size). */
  async toArray(): Promise<Item[]> {
    const all: Item[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

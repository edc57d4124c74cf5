// A LIST in pages (`limit` and `continue`), so that a reader of thousands of
// objects holds one page at a time. Each page's items are handed over while
// the next page is fetched. The API server may no longer honour a continue
// token: it answers 410 Gone, "Expired", once the snapshot it pointed at is
// compacted away. Then the list starts again from the first page. The caller
// is told, so that it can forget or skip what it already saw.
import { apiStatus } from './errors.ts';

export interface PageRequest {
  limit: number;
  continue?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Absent or empty on the last page. */
  continue?: string | undefined;
}

export type FetchPage<T> = (request: PageRequest) => Promise<Page<T>>;

export interface PagedListOptions {
  /** Items a page (the API server's `limit`). */
  limit: number;
  /** The list starts over after this many expired continue tokens (default 3); then the 410 is thrown. */
  maxRestarts?: number;
  /** Told before the list starts over from its first page. */
  onRestart?: () => void;
}

/** The API server refused a continue token: the list has to start again. */
export function isExpiredContinue(error: unknown): boolean {
  return apiStatus(error) === 410;
}

/**
 * Fetches every page of a list in order and hands each one's items to
 * `onPage`, fetching the next page meanwhile. Resolves when the last page is
 * handled; `onPage` rejecting stops the list (the page being fetched is let go).
 */
export async function eachPage<T>(
  fetch: FetchPage<T>,
  onPage: (items: T[]) => Promise<void>,
  options: PagedListOptions,
): Promise<void> {
  const maxRestarts = options.maxRestarts ?? 3;
  let restarts = 0;
  for (;;) {
    try {
      await walk(fetch, onPage, options.limit);
      return;
    } catch (error) {
      if (!(error instanceof ExpiredContinue)) throw error;
      if (++restarts > maxRestarts) throw error.cause;
      options.onRestart?.();
    }
  }
}

class ExpiredContinue extends Error {
  constructor(cause: unknown) {
    super('continue token expired', { cause });
  }
}

async function walk<T>(fetch: FetchPage<T>, onPage: (items: T[]) => Promise<void>, limit: number): Promise<void> {
  const get = (token: string | undefined) =>
    fetch({ limit, continue: token }).catch((error: unknown) => {
      // Only a continue token can expire; a 410 on the first page is the caller's to see.
      throw token !== undefined && isExpiredContinue(error) ? new ExpiredContinue(error) : error;
    });
  let page = await get(undefined);
  for (;;) {
    const token = page.continue || undefined;
    const next = token === undefined ? undefined : get(token);
    next?.catch(() => {}); // handled below, once this page is done
    await onPage(page.items);
    if (!next) return;
    page = await next;
  }
}

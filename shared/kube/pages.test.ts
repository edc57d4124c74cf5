import { describe, expect, it } from 'vitest';
import { eachPage, type FetchPage, type PageRequest } from './pages.ts';
import { ApiError } from './rest.ts';

/** A list of `items` served in pages as the API server does: the token is the offset; tokens in `expire` answer 410 once each. */
function server(items: number[], expire: string[] = []): { fetch: FetchPage<number>; requests: PageRequest[] } {
  const requests: PageRequest[] = [];
  const expiring = new Set(expire);
  const fetch: FetchPage<number> = async (request) => {
    requests.push(request);
    if (request.continue !== undefined && expiring.delete(request.continue)) {
      throw new ApiError(
        410,
        'GET',
        '/x',
        '{"reason":"Expired","message":"The provided continue parameter is too old"}',
      );
    }
    const from = request.continue === undefined ? 0 : Number(request.continue);
    const to = Math.min(items.length, from + request.limit);
    return { items: items.slice(from, to), continue: to < items.length ? String(to) : '' };
  };
  return { fetch, requests };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('eachPage', () => {
  it('hands over every item once, page by page, asking with the limit and each continue token', async () => {
    const { fetch, requests } = server(range(7));
    const pages: number[][] = [];
    await eachPage(
      fetch,
      async (items) => {
        pages.push(items);
      },
      { limit: 3 },
    );
    expect(pages).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(requests).toEqual([
      { limit: 3, continue: undefined },
      { limit: 3, continue: '3' },
      { limit: 3, continue: '6' },
    ]);
  });

  it('makes one request for a list that fits a page, and one for an empty list', async () => {
    for (const n of [0, 3]) {
      const { fetch, requests } = server(range(n));
      const seen: number[] = [];
      await eachPage(
        fetch,
        async (items) => {
          seen.push(...items);
        },
        { limit: 3 },
      );
      expect(seen).toEqual(range(n));
      expect(requests).toHaveLength(1);
    }
  });

  it('starts again from the first page when a continue token has expired, telling the caller first', async () => {
    const { fetch, requests } = server(range(7), ['6']);
    const events: string[] = [];
    await eachPage(
      fetch,
      async (items) => {
        events.push(items.join(','));
      },
      { limit: 3, onRestart: () => events.push('restart') },
    );
    expect(events).toEqual(['0,1,2', '3,4,5', 'restart', '0,1,2', '3,4,5', '6']);
    expect(requests.map((r) => r.continue)).toEqual([undefined, '3', '6', undefined, '3', '6']);
  });

  it('gives up with the 410 after maxRestarts restarts', async () => {
    const { fetch } = server(range(7), ['3']);
    const always: FetchPage<number> = async (r) => {
      if (r.continue !== undefined) throw new ApiError(410, 'GET', '/x', 'Expired');
      return fetch(r);
    };
    let restarts = 0;
    await expect(
      eachPage(always, async () => {}, { limit: 3, maxRestarts: 2, onRestart: () => restarts++ }),
    ).rejects.toMatchObject({ code: 410 });
    expect(restarts).toBe(2);
  });

  it('passes other errors through without starting again, a 410 on the first page included', async () => {
    const failing =
      (code: number, onContinue: boolean): FetchPage<number> =>
      async (r) => {
        if ((r.continue !== undefined) === onContinue) throw new ApiError(code, 'GET', '/x', '');
        return { items: [1], continue: 'more' };
      };
    let restarts = 0;
    const options = { limit: 1, onRestart: () => restarts++ };
    await expect(eachPage(failing(500, true), async () => {}, options)).rejects.toMatchObject({ code: 500 });
    await expect(eachPage(failing(410, false), async () => {}, options)).rejects.toMatchObject({ code: 410 });
    expect(restarts).toBe(0);
  });

  it('stops when the handler rejects, without waiting for the rest of the list', async () => {
    const { fetch, requests } = server(range(9));
    await expect(
      eachPage(
        fetch,
        async (items) => {
          if (items[0] === 3) throw new Error('stop');
        },
        { limit: 3 },
      ),
    ).rejects.toThrow('stop');
    expect(requests.length).toBeLessThanOrEqual(3);
  });

  it('fetches the next page while the current one is handled', async () => {
    const { fetch, requests } = server(range(6));
    let seenWhileFirst = 0;
    await eachPage(
      fetch,
      async (items) => {
        if (items[0] === 0) {
          await new Promise((r) => setImmediate(r));
          seenWhileFirst = requests.length;
        }
      },
      { limit: 3 },
    );
    expect(seenWhileFirst).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import {
  inform,
  listEnd,
  pauseAfter,
  relisted,
  resumeFrom,
  type ListPage,
  type Transport,
  type Versioned,
  type WatchCalls,
} from './informer.ts';

const obj = (name: string, rv: string, uid = `uid-${name}`): Versioned => ({
  metadata: { name, namespace: 'ns', uid, resourceVersion: rv },
});
const known = (...objects: Versioned[]) => new Map(objects.map((o) => [`ns/${o.metadata?.name}`, o]));
const told = (changes: [string, Versioned][]) => changes.map(([c, o]) => `${c} ${o.metadata?.name}`);

describe('a list after 410 Gone, against what was known', () => {
  it('tells what is new, what changed and what vanished, and nothing of what stayed', () => {
    const before = known(obj('same', '1'), obj('changed', '2'), obj('gone', '3'));
    const after = [obj('same', '1'), obj('changed', '7'), obj('new', '8')];
    expect(told(relisted(before, after))).toEqual(['MODIFIED changed', 'ADDED new', 'DELETED gone']);
  });

  it('tells an object made again under the same name as deleted, then added', () => {
    const before = known(obj('a', '1', 'uid-1'));
    expect(told(relisted(before, [obj('a', '9', 'uid-2')]))).toEqual(['DELETED a', 'ADDED a']);
  });

  it('tells the last copy known of a vanished object', () => {
    const last = obj('gone', '3');
    expect(relisted(known(last), [])).toEqual([['DELETED', last]]);
  });
});

describe('where a watch is opened again', () => {
  it("from each line's resourceVersion, bookmarks included; nowhere after a 410 (list again)", () => {
    expect(resumeFrom(undefined, 'ADDED', { metadata: { resourceVersion: '5' } })).toBe('5');
    expect(resumeFrom('5', 'BOOKMARK', { metadata: { resourceVersion: '9' } })).toBe('9');
    expect(resumeFrom('9', 'ERROR', { code: 500 })).toBe('9');
    expect(resumeFrom('9', 'ERROR', { code: 410 })).toBeUndefined();
  });

  it('short after an end or a 410, doubling after each failure in a row up to 30 s, a minute after a refusal', () => {
    expect(pauseAfter('ended', 0)).toBe(100);
    expect(pauseAfter('gone', 0)).toBe(100);
    expect([1, 2, 3, 7, 20].map((n) => pauseAfter('failed', n))).toEqual([500, 1000, 2000, 30_000, 30_000]);
    expect(pauseAfter('refused', 1)).toBe(60_000);
  });

  it("a list's error: refused, gone (an expired continue token) or failed", () => {
    expect(listEnd({ code: 403 })).toBe('refused');
    expect(listEnd({ statusCode: 401 })).toBe('refused');
    expect(listEnd({ code: 410 })).toBe('gone');
    expect(listEnd(new Error('reset'))).toBe('failed');
  });
});

/** A transport whose lists and watches the test plays by hand. */
function scripted(pages: ListPage[][]) {
  const watches: { from: string; calls: WatchCalls; stopped: boolean }[] = [];
  let lists = 0;
  const transport: Transport = {
    list: (cont) => {
      const round = pages[Math.min(lists, pages.length - 1)]!;
      const page = round[cont === undefined ? 0 : Number(cont)]!;
      if (!page.metadata?.continue) lists++;
      return Promise.resolve(page);
    },
    watch: (from, calls) => {
      const w = { from, calls, stopped: false };
      watches.push(w);
      return { stop: () => void (w.stopped = true) };
    },
  };
  return { transport, watches };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('an informer', () => {
  it('lists every page, is synced only then, and watches from the list’s version', async () => {
    const { transport, watches } = scripted([
      [
        { items: [obj('a', '1')], metadata: { resourceVersion: '10', continue: '1' } },
        { items: [obj('b', '2')], metadata: { resourceVersion: '10' } },
      ],
    ]);
    const seen: string[] = [];
    let synced = 0;
    const i = inform({
      transport,
      on: (c, o, listed) => seen.push(`${c} ${(o as Versioned).metadata?.name} ${listed}`),
      synced: () => synced++,
    });
    await i.synced;
    await settle();
    expect(seen).toEqual(['ADDED a true', 'ADDED b true']);
    expect(synced).toBe(1);
    expect(watches.map((w) => w.from)).toEqual(['10']);
    i.stop();
  });

  it('after 410 Gone, lists again and tells the deletions the watch missed; synced is told once', async () => {
    const { transport, watches } = scripted([
      [{ items: [obj('a', '1'), obj('b', '2')], metadata: { resourceVersion: '10' } }],
      [{ items: [obj('b', '2')], metadata: { resourceVersion: '30' } }],
    ]);
    const seen: string[] = [];
    let synced = 0;
    const opened: boolean[] = [];
    const lists: string[][] = [];
    const i = inform({
      transport,
      on: (c, o, listed) => seen.push(`${c} ${(o as Versioned).metadata?.name} ${listed}`),
      synced: () => synced++,
      opened: (open) => opened.push(open),
      listed: (items) => lists.push(items.map((o) => (o as Versioned).metadata?.name ?? '')),
    });
    await i.synced;
    await settle();
    const first = watches[0]!;
    first.calls.answered();
    first.calls.line('BOOKMARK', { metadata: { resourceVersion: '12' } });
    first.calls.line('ERROR', { code: 410 });
    first.calls.end('ended');
    await new Promise((r) => setTimeout(r, 150));
    await settle();
    expect(seen).toEqual(['ADDED a true', 'ADDED b true', 'DELETED a true']);
    expect(synced).toBe(1);
    // every object of each list, not only what changed: b stayed, and is listed again
    expect(lists).toEqual([['a', 'b'], ['b']]);
    expect(i.lists()).toBe(2);
    expect(opened).toEqual([true, false]);
    expect(watches.map((w) => w.from)).toEqual(['10', '30']);
    i.stop();
    expect(watches[1]!.stopped).toBe(true);
  });

  it('a watch the API server ends is opened again from the last version seen, with no list', async () => {
    const { transport, watches } = scripted([[{ items: [], metadata: { resourceVersion: '10' } }]]);
    const seen: string[] = [];
    const i = inform({
      transport,
      on: (c, o, listed) => seen.push(`${c} ${(o as Versioned).metadata?.name} ${listed}`),
    });
    await i.synced;
    await settle();
    watches[0]!.calls.line('ADDED', obj('c', '11'));
    watches[0]!.calls.line('DELETED', obj('c', '12'));
    watches[0]!.calls.line('BOOKMARK', { metadata: { resourceVersion: '15' } });
    watches[0]!.calls.end('ended');
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual(['ADDED c false', 'DELETED c false']);
    expect(watches.map((w) => w.from)).toEqual(['10', '15']);
    expect(i.lists()).toBe(1);
    i.stop();
  });

  it('whole: a deletion a list finds is told with the last copy seen, not its metadata alone', async () => {
    const withSpec = { ...obj('a', '1'), spec: { x: 1 } };
    const { transport, watches } = scripted([
      [{ items: [withSpec], metadata: { resourceVersion: '10' } }],
      [{ items: [], metadata: { resourceVersion: '20' } }],
    ]);
    const deleted: unknown[] = [];
    const i = inform({ transport, whole: true, on: (c, o) => c === 'DELETED' && deleted.push(o) });
    await i.synced;
    await settle();
    watches[0]!.calls.line('ERROR', { code: 410 });
    watches[0]!.calls.end('ended');
    await new Promise((r) => setTimeout(r, 150));
    await settle();
    expect(deleted).toEqual([withSpec]);
    i.stop();
  });
});

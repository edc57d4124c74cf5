import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { outbox } from './outbox.ts';

const log = pino({ level: 'silent' });

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => { open = r; });
  return { opened, open: () => open() };
}

describe('the outbox of work after the reply', () => {
  it('runs one piece of work per key at a time, and forgets it once done', async () => {
    const o = outbox(log);
    const g = gate();
    let starts = 0;
    const work = async () => { starts++; await g.opened; };
    o.start('a', work);
    o.start('a', work);
    expect(o.running()).toEqual(['a']);
    g.open();
    expect(await o.drain(60_000)).toBe(0);
    expect(o.running()).toEqual([]);
    expect(starts).toBe(1);
    o.start('a', async () => { starts++; });
    expect(await o.drain(60_000)).toBe(0);
    expect(starts).toBe(2);
  });

  it('drain waits for the work running when it ends within the grace', async () => {
    const o = outbox(log);
    const g = gate();
    let finished = false;
    o.start('a', async () => { await g.opened; finished = true; });
    const drained = o.drain(60_000);
    g.open();
    expect(await drained).toBe(0);
    expect(finished).toBe(true);
  });

  it('drain aborts what is still running when the grace is over, and says how many', async () => {
    const o = outbox(log);
    const seen: unknown[] = [];
    const never = (signal: AbortSignal) => new Promise<void>((_r, reject) => signal.addEventListener('abort', () => {
      seen.push(signal.reason);
      reject(new Error('aborted'));
    }));
    o.start('a', never);
    o.start('b', never);
    expect(await o.drain(0)).toBe(2);
    expect(seen).toHaveLength(2);
    expect(o.running()).toEqual([]);
  });

  it('a failure is caught: the work is forgotten and may start again', async () => {
    const o = outbox(log);
    o.start('a', async () => { throw new Error('sink down'); });
    expect(await o.drain(60_000)).toBe(0);
    let ran = false;
    o.start('a', async () => { ran = true; });
    await o.drain(60_000);
    expect(ran).toBe(true);
  });
});

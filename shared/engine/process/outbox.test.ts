import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { outbox, REMEMBERED } from './outbox.ts';

const log = pino({ level: 'silent' });

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open: () => open() };
}

describe('the outbox of work after the reply', () => {
  it('runs one piece of work per key at a time, and forgets it once done', async () => {
    const o = outbox(log);
    const g = gate();
    let starts = 0;
    const work = async () => {
      starts++;
      await g.opened;
      return true;
    };
    void o.send('a', work);
    void o.send('a', work);
    expect(o.running()).toEqual(['a']);
    g.open();
    expect(await o.drain(60_000)).toBe(0);
    expect(o.running()).toEqual([]);
    expect(starts).toBe(1);
    void o.send('a', async () => {
      starts++;
      return true;
    });
    expect(await o.drain(60_000)).toBe(0);
    expect(starts).toBe(2);
  });

  it('drain waits for the work running when it ends within the grace', async () => {
    const o = outbox(log);
    const g = gate();
    let finished = false;
    void o.send('a', async () => {
      await g.opened;
      finished = true;
      return true;
    });
    const drained = o.drain(60_000);
    g.open();
    expect(await drained).toBe(0);
    expect(finished).toBe(true);
  });

  it('drain aborts what is still running when the grace is over, and says how many', async () => {
    const o = outbox(log);
    const seen: unknown[] = [];
    const never = (signal: AbortSignal) =>
      new Promise<boolean>((_r, reject) =>
        signal.addEventListener('abort', () => {
          seen.push(signal.reason);
          reject(new Error('aborted'));
        }),
      );
    void o.send('a', never);
    void o.send('b', never);
    expect(await o.drain(0)).toBe(2);
    expect(seen).toHaveLength(2);
    expect(o.running()).toEqual([]);
  });

  it('a failure is caught: the work is forgotten and may start again', async () => {
    const o = outbox(log);
    void o.send('a', async () => {
      throw new Error('sink down');
    });
    expect(await o.drain(60_000)).toBe(0);
    let ran = false;
    void o.send('a', async () => {
      ran = true;
      return true;
    });
    await o.drain(60_000);
    expect(ran).toBe(true);
  });

  it('remembers the keys of work done (resolved true), not of work failed, left undone or aborted', async () => {
    const o = outbox(log);
    void o.send('sent', async () => true);
    void o.send('owed', async () => false);
    void o.send('threw', async () => {
      throw new Error('sink down');
    });
    void o.send(
      'aborted',
      (signal) =>
        new Promise<boolean>((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    expect(o.done('sent')).toBe(false);
    expect(await o.drain(0)).toBe(1);
    expect(['sent', 'owed', 'threw', 'aborted', 'never'].filter((k) => o.done(k))).toEqual(['sent']);
  });

  it(`forgets the oldest keys done beyond ${REMEMBERED}`, async () => {
    const o = outbox(log);
    for (let i = 0; i <= REMEMBERED; i++) void o.send(`k${i}`, async () => true);
    await o.drain(60_000);
    expect(o.done('k0')).toBe(false);
    expect(o.done('k1')).toBe(true);
    expect(o.done(`k${REMEMBERED}`)).toBe(true);
  });
});

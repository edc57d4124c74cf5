import { describe, expect, it } from 'vitest';
import { runLock } from './run-lock.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

function gated() {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  return { gate, open };
}

describe('runLock', () => {
  it('runs the work on one run one at a time, in order', async () => {
    const q = runLock();
    const log: string[] = [];
    const first = gated();
    const a = q('r', false, async () => {
      log.push('a start');
      await first.gate;
      log.push('a end');
      return 'a';
    });
    const b = q('r', false, async () => {
      log.push('b');
      return 'b';
    });
    await tick();
    expect(log).toEqual(['a start']);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('runs different runs at once', async () => {
    const q = runLock();
    const first = gated();
    const log: string[] = [];
    const a = q('r1', false, async () => {
      await first.gate;
      log.push('r1');
    });
    await q('r2', false, async () => {
      log.push('r2');
    });
    first.open();
    await a;
    expect(log).toEqual(['r2', 'r1']);
  });

  it('shares one waiting look-again among the requests that ask for it meanwhile', async () => {
    const q = runLock();
    const first = gated();
    let looks = 0;
    const busy = q('r', false, async () => {
      await first.gate;
    });
    const looksAgain = [1, 2, 3].map(() => q('r', true, async () => ++looks));
    first.open();
    await busy;
    expect(await Promise.all(looksAgain)).toEqual([1, 1, 1]);
    expect(looks).toBe(1);
  });

  it('does not share a look-again that has already started', async () => {
    const q = runLock();
    const first = gated();
    let looks = 0;
    const started = q('r', true, async () => {
      looks++;
      await first.gate;
      return looks;
    });
    await tick();
    const later = q('r', true, async () => ++looks);
    first.open();
    expect(await started).toBe(1);
    expect(await later).toBe(2);
  });

  it('goes on after a failure, which only its caller sees', async () => {
    const q = runLock();
    const failing = q('r', false, async () => {
      throw new Error('boom');
    });
    const next = q('r', false, async () => 'ok');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ok');
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { highWaterKiB } from './max-rss.ts';

describe('max-rss', () => {
  it('reads VmHWM from a status text', () => {
    expect(highWaterKiB('Name:\tnode\nVmPeak:\t 999 kB\nVmHWM:\t   81234 kB\nVmRSS:\t 70000 kB\n')).toBe(81234);
    expect(highWaterKiB('Name:\tnode\n')).toBeUndefined();
  });

  it("a small child of a large parent reports its own peak, not the parent's size it was forked with", () => {
    // This test process holds 300 MiB resident; getrusage's maxrss of a child would start from that.
    const ballast = Buffer.alloc(300 * 1024 * 1024, 1);
    const file = join(mkdtempSync(join(tmpdir(), 'max-rss-')), 'peak');
    const child = spawnSync(process.execPath, ['--import', join(import.meta.dirname, 'max-rss.ts'), '-e', '0'], {
      env: { ...process.env, BENCH_MAX_RSS_FILE: file },
    });
    expect(child.status).toBe(0);
    const peakMiB = Number(readFileSync(file, 'utf8')) / 1024;
    expect(ballast[ballast.length - 1]).toBe(1);
    expect(peakMiB).toBeGreaterThan(10);
    expect(peakMiB).toBeLessThan(200);
  });
});

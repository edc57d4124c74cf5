import { describe, expect, it } from 'vitest';
import { childCpuMs, cliSpeedSection, type CliSpeed } from './cli-speed.ts';

describe('the cli phase', () => {
  it("reads the children's user and system time from the shell's `times`, dash's and bash's forms", () => {
    expect(childCpuMs('0m0.000000s 0m0.000000s\n0m0.260000s 0m0.010000s\n')).toBeCloseTo(270, 6);
    expect(childCpuMs('0m0.001s 0m0.002s\n1m2.500s 0m0.250s\n')).toBeCloseTo(62_750, 6);
    expect(() => childCpuMs('')).toThrow('no CPU times');
  });

  it('meets a goal by the median wall time, and shows the fastest beside it', () => {
    const t = (median: number, min: number) => ({
      wallMs: { median, min, max: median + 50, n: 7 },
      cpuMs: { median: median / 2, min: min / 2, max: median, n: 7 },
    });
    const rows: CliSpeed[] = [
      { command: '--help', goalMs: 150, cascade: t(96.4, 90), kubectl: t(50, 40) },
      { command: 'version', goalMs: 150, cascade: t(150, 120), kubectl: t(70, 60) },
    ];
    rows[1]!.floor = t(110, 100);
    expect(cliSpeedSection({ cli: rows })?.rows).toEqual([
      ['--help', '96 (90)', 48, '50 (40)', 25, '', '', '< 150', 'yes'],
      ['version', '150 (120)', 75, '70 (60)', 35, '110 (100)', 55, '< 150', 'no'],
    ]);
    expect(cliSpeedSection({})).toBeUndefined();
  });
});

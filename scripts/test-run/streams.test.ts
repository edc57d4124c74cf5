import { describe, expect, it } from 'vitest';
import { mergeReports, prefixed, STREAMS, vitestArgs, type VitestReport } from './streams.ts';

const report = (over: Partial<VitestReport>): VitestReport => ({
  numTotalTests: 2,
  numPassedTests: 2,
  numFailedTests: 0,
  startTime: 100,
  success: true,
  testResults: ['a'],
  ...over,
});

describe('the test streams', () => {
  it('run every project once between them', () => {
    expect(STREAMS.flatMap((s) => s.projects).sort()).toEqual(['cluster', 'real-node', 'unit']);
  });

  it('give vitest its projects and a JSON report', () => {
    expect(vitestArgs({ name: 'x', projects: ['unit', 'cluster'] }, '/r.json')).toEqual([
      'run',
      '--project',
      'unit',
      '--project',
      'cluster',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=/r.json',
    ]);
  });

  it('merge reports: counts summed, earliest start, files of both, success only when both', () => {
    const merged = mergeReports([
      report({}),
      report({ numFailedTests: 1, numPassedTests: 4, numTotalTests: 5, startTime: 50, testResults: ['b'] }),
    ]);
    expect(merged).toMatchObject({
      numTotalTests: 7,
      numPassedTests: 6,
      numFailedTests: 1,
      startTime: 50,
      success: true,
      testResults: ['a', 'b'],
    });
    expect(mergeReports([report({}), report({ success: false })]).success).toBe(false);
    expect(() => mergeReports([])).toThrow('no report');
  });

  it("prefix each line with the stream's name, aligned", () => {
    expect(prefixed({ name: 'cluster', projects: [] }, 'ok')).toBe('cluster   │ ok');
    expect(prefixed({ name: 'real-node', projects: [] }, 'ok')).toBe('real-node │ ok');
  });
});

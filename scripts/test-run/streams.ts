// The vitest part of `npm test` as two processes side by side (run.ts): one
// runs the unit and cluster projects, the other the real-node project. Each
// starts its own control plane (test/global-setup.ts). The first mostly waits
// on the API server, the second on the real node, Knative and their builds,
// so on 2 cores the two take about as long as the longer one. This file holds
// the pure part: the streams, and one report made of theirs.

/** One vitest process of `npm test`. */
export interface Stream {
  /** Its name: the prefix of its output's lines, and of its report's file. */
  name: string;
  /** The vitest projects it runs. */
  projects: string[];
}

export const STREAMS: Stream[] = [
  { name: 'cluster', projects: ['unit', 'cluster'] },
  { name: 'real-node', projects: ['real-node'] },
];

/** The arguments of `vitest` for `stream`, its JSON report written to `reportFile`. */
export function vitestArgs(stream: Stream, reportFile: string): string[] {
  return [
    'run',
    ...stream.projects.flatMap((project) => ['--project', project]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
  ];
}

/** What `mergeReports` reads of a vitest JSON report; other fields pass through from the first. */
export interface VitestReport {
  startTime: number;
  success: boolean;
  testResults: unknown[];
  [field: string]: unknown;
}

/**
 * One report of several: the counts (every `num…` field) summed, the start
 * the earliest, a success only when each was, the files of each.
 */
export function mergeReports(reports: VitestReport[]): VitestReport {
  if (reports.length === 0) throw new Error('no report to merge');
  const merged: VitestReport = { ...reports[0]!, testResults: [] };
  for (const field of Object.keys(merged).filter((key) => key.startsWith('num'))) {
    merged[field] = reports.reduce((sum, report) => sum + Number(report[field] ?? 0), 0);
  }
  merged.startTime = Math.min(...reports.map((report) => report.startTime));
  merged.success = reports.every((report) => report.success);
  merged.testResults = reports.flatMap((report) => report.testResults);
  return merged;
}

/** A line of a stream's output as `npm test` prints it. */
export function prefixed(stream: Stream, line: string): string {
  return `${stream.name.padEnd(9)} │ ${line}`;
}

// Preloaded into a process the bench measures (`node --import bench/max-rss.ts
// ...`): as the process exits, its peak resident set (KiB) is written to
// $BENCH_MAX_RSS_FILE: VmHWM from /proc/self/status, the high-water mark of
// this program's own memory since its exec. Not getrusage's maxrss: on Linux
// that keeps, across the exec, the RSS the child had as a fork of its parent,
// so a child of a large process (the bench) reported the parent's size.
import { readFileSync, writeFileSync } from 'node:fs';

/** VmHWM in KiB from a /proc/<pid>/status text, or undefined. */
export function highWaterKiB(status: string): number | undefined {
  const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) : undefined;
}

function peakKiB(): number {
  try {
    return highWaterKiB(readFileSync('/proc/self/status', 'utf8')) ?? process.resourceUsage().maxRSS;
  } catch {
    return process.resourceUsage().maxRSS; // no /proc: getrusage, with the caveat above
  }
}

const file = process.env.BENCH_MAX_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(peakKiB())));

// What the kernel says about a process: CPU seconds used and resident memory,
// from /proc, sampled in the background while a phase runs.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * utime + stime of a process in seconds, or undefined when it is gone; with
 * `mainThread`, of its main thread alone (a Node.js process's JavaScript runs
 * there; V8's helper threads, such as concurrent GC, are the rest).
 */
export function cpuSeconds(pid: number, mainThread = false): number | undefined {
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a process's main thread in ms, to the nanosecond (the
 * scheduler's own count, /proc/PID/task/PID/schedstat), or undefined when it
 * is gone: a cold start's few hundred ms need more than stat's 10 ms ticks.
 */
export function mainThreadCpuMs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** VmRSS in MiB, or undefined when the process is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface ProcessUsage {
  /** CPU seconds used per wall second over the window (1 = one core busy). */
  cores: number;
  /** Highest utilisation of any sample interval. */
  peakCores: number;
  maxRssMiB: number;
}

export interface Sampler {
  stop(): Record<string, ProcessUsage>;
}

/** Samples CPU and RSS of the named processes every `intervalMs` until stopped. */
export function sampleProcesses(pids: Record<string, number>, intervalMs = 250): Sampler {
  const start = performance.now();
  const first = Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, cpuSeconds(p) ?? 0]));
  const last = { ...first };
  let lastAt = start;
  const peak: Record<string, number> = {};
  const rss: Record<string, number> = {};
  const tick = () => {
    const now = performance.now();
    for (const [name, pid] of Object.entries(pids)) {
      const cpu = cpuSeconds(pid);
      if (cpu !== undefined) {
        peak[name] = Math.max(peak[name] ?? 0, (cpu - last[name]!) / ((now - lastAt) / 1000));
        last[name] = cpu;
      }
      rss[name] = Math.max(rss[name] ?? 0, rssMiB(pid) ?? 0);
    }
    lastAt = now;
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      const seconds = (performance.now() - start) / 1000;
      return Object.fromEntries(
        Object.keys(pids).map((name) => [
          name,
          {
            cores: (last[name]! - first[name]!) / seconds,
            peakCores: peak[name] ?? 0,
            maxRssMiB: rss[name] ?? 0,
          },
        ]),
      );
    },
  };
}

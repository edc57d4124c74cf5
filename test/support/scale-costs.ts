// What a batch of runs costs on the local cluster, for bench/knative-scale.ts:
// - the CPU of the function's pods on the real node, from their cgroups
//   (cgroup v1 cpuacct.usage, the kubelet's cgroupfs layout: local/node/),
//   sampled each second, since a pod the autoscaler removes takes its
//   cgroup with it;
// - the kube-apiserver's CPU, utime + stime of its process (/proc/<pid>/stat),
//   its pid from the cluster's pids.json;
// - one client's requests from the audit log, read as it grows, so that its
//   rotation at 200 MB loses nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { cpuSeconds } from '../../bench/procfs.ts';
import { readPids } from '../../local/cluster/processes.ts';
import { auditLinesSince, auditLogOf } from './audit-log.ts';

const CPUACCT = '/sys/fs/cgroup/cpuacct/cascade-node/kubepods';
const QOS = ['', 'burstable', 'besteffort'];

/** CPU seconds of a pod's cgroup, or of one container in it (`containerId`), or undefined once it is gone. */
export function cgroupCpuSeconds(podUid: string, containerId = ''): number | undefined {
  for (const qos of QOS) {
    const file = join(CPUACCT, qos, `pod${podUid}`, containerId, 'cpuacct.usage');
    try {
      return Number(readFileSync(file, 'utf8')) / 1e9;
    } catch {
      // another QoS class, or gone
    }
  }
  return undefined;
}

/** The containerd id of a pod's container other than Knative's queue-proxy (the function's), once it runs. */
export function containerId(pod: V1Pod): string | undefined {
  const id = pod.status?.containerStatuses?.find((c) => c.name !== 'queue-proxy')?.containerID;
  return id?.replace(/^[a-z]+:\/\//, '');
}

interface PodCpu {
  /** At the start, or 0 for a pod that came later; the last reading. */
  from: { pod: number; fn: number };
  last: { pod: number; fn: number };
}

export interface CpuSampler {
  /** Stops sampling; the CPU seconds used since the start, the function container's and the whole pods'. */
  stop(): { fn: number; pod: number };
}

/**
 * Samples each second the CPU of the pods `pods()` lists (by uid), those
 * there at the start from their reading then, those that come later from 0:
 * the whole pod, and the function's container alone (containerId).
 */
export function sampleCpu(pods: () => Map<string, V1Pod>): CpuSampler {
  const seen = new Map<string, PodCpu>();
  const sample = (first: boolean) => {
    for (const [uid, pod] of pods()) {
      const id = containerId(pod);
      const podCpu = cgroupCpuSeconds(uid);
      const fn = id ? cgroupCpuSeconds(uid, id) : undefined;
      if (podCpu === undefined) continue;
      const now = { pod: podCpu, fn: fn ?? 0 };
      const entry = seen.get(uid) ?? { from: first ? now : { pod: 0, fn: 0 }, last: now };
      entry.last = { pod: now.pod, fn: fn ?? entry.last.fn };
      seen.set(uid, entry);
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 1000);
  return {
    stop: () => {
      clearInterval(timer);
      sample(false);
      let fn = 0;
      let pod = 0;
      for (const { from, last } of seen.values()) {
        fn += last.fn - from.fn;
        pod += last.pod - from.pod;
      }
      return { fn, pod };
    },
  };
}

/** The kube-apiserver's pid of the local cluster whose admin kubeconfig is `kubeconfig` (pids.json beside it). */
export function apiserverPid(kubeconfig: string): number {
  const entry = readPids(join(dirname(kubeconfig), 'pids.json')).find((p) => p.name === 'kube-apiserver');
  if (!entry) throw new Error(`no kube-apiserver in ${dirname(kubeconfig)}/pids.json`);
  return entry.pid;
}

/** The kube-apiserver's CPU seconds so far: utime + stime. */
export function apiserverCpuSeconds(kubeconfig: string): number {
  const seconds = cpuSeconds(apiserverPid(kubeconfig));
  if (seconds === undefined) throw new Error('the kube-apiserver is gone');
  return seconds;
}

/** The rotated audit log: the newest `audit-<time>.log` beside it. */
function rotatedLog(file: string): string | undefined {
  const dir = dirname(file);
  const backups = readdirSync(dir).filter((f) => /^audit-.+\.log$/.test(f));
  const newest = backups.map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest && existsSync(newest) ? newest : undefined;
}

export interface AuditTail {
  /** Stops reading; every line of the user's requests written since the start. */
  stop(): string[];
}

/** Reads the audit log of `kubeconfig`'s cluster every 2 s, keeping the lines of `user`. */
export function tailAudit(kubeconfig: string, user: string): AuditTail {
  const file = auditLogOf(kubeconfig);
  const needle = `"username":"${user}"`;
  const kept: string[] = [];
  let offset = existsSync(file) ? statSync(file).size : 0;
  const take = (lines: string[]) => kept.push(...lines.filter((l) => l.includes(needle)));
  const read = () => {
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size < offset) {
      // rotated: the rest of the old file, then the new one from its start
      const old = rotatedLog(file);
      if (old) take(auditLinesSince(old, offset));
      offset = 0;
    }
    const lines = auditLinesSince(file, offset);
    offset += Buffer.byteLength(lines.join('\n'));
    take(lines);
  };
  const timer = setInterval(read, 2000);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return kept;
    },
  };
}

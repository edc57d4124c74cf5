// The memory of a pod on the real node: the RSS of every process in its
// memory cgroup, in the kubelet's cgroupfs layout (local/node/).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** RSS in MiB of every process in the pod's memory cgroup (the kubelet's cgroupfs layout). */
export function podRssMiB(uid: string): number {
  const root = '/sys/fs/cgroup/memory/cascade-node/kubepods';
  const name = `pod${uid}`;
  const dirs = [root, join(root, 'burstable'), join(root, 'besteffort')].map((d) => join(d, name));
  const pids = new Set<string>();
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const p of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) pids.add(p);
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  dirs.forEach(walk);
  let kib = 0;
  for (const pid of pids) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    kib += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kib / 1024;
}

// The local kube-apiserver's audit log (local/cluster/audit-policy.yaml: one
// Metadata-level JSON line per request stage): each client's requests, told
// apart by the user they authenticated as, counted by verb. The benchmarks
// and tests mark the log's end, act, then count what was written after it.
import { openSync, readSync, closeSync, statSync } from 'node:fs';

/** What is read of one audit event (audit.k8s.io/v1 Event). */
interface AuditLine {
  auditID?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string };
}

export const READ_VERBS = ['get', 'list', 'watch'] as const;

export interface ClientRequests {
  /** get, list, watch (of anything, Events included). */
  reads: number;
  /** create, update, patch, delete, deletecollection, except of Kubernetes Events. */
  writes: number;
  /** Kubernetes Events written (core/v1 or events.k8s.io). */
  events: number;
  /** "resource[/subresource] verb" → count. */
  byVerb: Record<string, number>;
}

export function emptyRequests(): ClientRequests {
  return { reads: 0, writes: 0, events: 0, byVerb: {} };
}

function add(c: ClientRequests, line: AuditLine): void {
  const verb = line.verb ?? '?';
  const ref = line.objectRef;
  const resource = ref?.resource ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}` : 'non-resource';
  const key = `${resource} ${verb}`;
  c.byVerb[key] = (c.byVerb[key] ?? 0) + 1;
  if ((READ_VERBS as readonly string[]).includes(verb)) c.reads++;
  else if (ref?.resource === 'events') c.events++;
  else c.writes++;
}

/**
 * Requests of each named client in `lines` (JSON audit events), once per
 * request however many of its stages were logged (a watch logs its start and
 * its end). `clients` maps a label to the username it authenticates as.
 */
export function countByClient(
  lines: Iterable<string>,
  clients: Record<string, string>,
): Record<string, ClientRequests> {
  const byUser = new Map(Object.entries(clients).map(([label, user]) => [user, label]));
  const out: Record<string, ClientRequests> = Object.fromEntries(
    Object.keys(clients).map((label) => [label, emptyRequests()]),
  );
  const seen = new Set<string>();
  for (const text of lines) {
    if (!text.trim()) continue;
    let line: AuditLine;
    try {
      line = JSON.parse(text) as AuditLine;
    } catch {
      continue; // a line cut by the read (still being written)
    }
    const label = byUser.get(line.user?.username ?? '');
    if (label === undefined) continue;
    if (line.auditID) {
      if (seen.has(line.auditID)) continue;
      seen.add(line.auditID);
    }
    add(out[label]!, line);
  }
  return out;
}

/** Per `n` (runs, transitions): every figure divided. */
export function perUnitRequests(c: ClientRequests, n: number): ClientRequests {
  const d = (v: number) => (n > 0 ? v / n : 0);
  return {
    reads: d(c.reads),
    writes: d(c.writes),
    events: d(c.events),
    byVerb: Object.fromEntries(Object.entries(c.byVerb).map(([k, v]) => [k, d(v)])),
  };
}

/** The log's current end, to count from. */
export function auditMark(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The whole lines written after `mark` (from the start when the log was rotated meanwhile). */
export function auditLinesSince(file: string, mark: number): string[] {
  const size = auditMark(file);
  const from = size < mark ? 0 : mark;
  if (size <= from) return [];
  const buf = Buffer.alloc(size - from);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  const text = buf.toString('utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
}

/** The audit log of the cluster whose admin kubeconfig is `kubeconfig` (local/cluster/paths.ts: <state>/logs/audit.log). */
export function auditLogOf(kubeconfig: string): string {
  return `${kubeconfig.slice(0, kubeconfig.lastIndexOf('/'))}/logs/audit.log`;
}

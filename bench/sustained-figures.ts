// The arithmetic of the sustained and replicas phases: when each run request
// goes, how many things happened per second in a window, the replies the
// function gave each kind of event, and which process was busiest. Pure.
import type { Attempt } from '../local/stand-ins/broker/dispatch.ts';
import { RUN_REQUESTED } from '../shared/api/events.ts';

/** When each run request goes, in ms from the level's start: `rate` a second for `durationMs`, or all at once for a burst. */
export function arrivals(level: { rate: number; durationMs: number } | { burst: number }): number[] {
  if ('burst' in level) return Array.from({ length: level.burst }, () => 0);
  const n = Math.floor((level.rate * level.durationMs) / 1000);
  return Array.from({ length: n }, (_, i) => (i * 1000) / level.rate);
}

/** How many of `times` fall in [from, to), per second of that window. */
export function perSecond(times: readonly number[], from: number, to: number): number {
  const seconds = (to - from) / 1000;
  if (seconds <= 0) return 0;
  return times.filter((t) => t >= from && t < to).length / seconds;
}

/** Replies that held an event back: the token bucket's 429, and 5xx or no answer (queue-proxy's 503, a timeout). */
export interface Refusals {
  attempts: number;
  r429: number;
  r5xx: number;
}

export interface RepliesByKind {
  /** Run requests: new work, which the token bucket admits. */
  runRequests: Refusals;
  /** Everything else: Job changes, module results, a run's own changes. */
  progress: Refusals;
}

/** Each delivery attempt to the function, counted by what it carried and how it was answered. */
export function repliesByKind(attempts: readonly Attempt[]): RepliesByKind {
  const out: RepliesByKind = {
    runRequests: { attempts: 0, r429: 0, r5xx: 0 },
    progress: { attempts: 0, r429: 0, r5xx: 0 },
  };
  for (const a of attempts) {
    if (a.route.endsWith('dead-letter sink')) continue;
    const r = a.type === RUN_REQUESTED ? out.runRequests : out.progress;
    r.attempts++;
    if (a.status === 429) r.r429++;
    else if (a.status === undefined || a.status >= 500) r.r5xx++;
  }
  return out;
}

/** The process that used the most CPU (cores), and how much. */
export function busiest(cores: Record<string, number>): { name: string; cores: number } | undefined {
  let top: { name: string; cores: number } | undefined;
  for (const [name, c] of Object.entries(cores)) if (!top || c > top.cores) top = { name, cores: c };
  return top;
}

/** CPU ms spent per transition by a process that used `cores` for `seconds`. */
export function cpuMsPer(cores: number, seconds: number, transitions: number): number | undefined {
  return transitions > 0 ? (cores * seconds * 1000) / transitions : undefined;
}

/** One client's requests on the CascadeAutoOperator, from the audit log: status writes, those refused 409, and reads. */
export interface OperatorRequests {
  /** Every request of the client, whatever it touched. */
  requests: number;
  statusWrites: number;
  conflicts: number;
  reads: number;
}

interface AuditFields {
  auditID?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  responseStatus?: { code?: number };
}

function parsed(text: string): AuditFields | undefined {
  try {
    return JSON.parse(text) as AuditFields;
  } catch {
    return undefined; // a line cut by the read
  }
}

/** Adds one request to the counts. */
function tally(out: OperatorRequests, line: AuditFields): void {
  out.requests++;
  const ref = line.objectRef;
  if (ref?.resource !== 'cascadeautooperators') return;
  if (ref.subresource === 'status' && line.verb === 'update') {
    out.statusWrites++;
    if (line.responseStatus?.code === 409) out.conflicts++;
  } else if (!ref.subresource && line.verb === 'get') out.reads++;
}

/** Counts `user`'s requests in audit lines (test/support/audit-log.ts), once per auditID. */
export function operatorRequests(lines: Iterable<string>, user: string): OperatorRequests {
  const out: OperatorRequests = { requests: 0, statusWrites: 0, conflicts: 0, reads: 0 };
  for (const line of requestsOf(lines, user)) tally(out, line);
  return out;
}

/** "resource[/subresource] verb" of an audit line. */
function verbKey(line: AuditFields): string {
  const ref = line.objectRef;
  const sub = ref?.subresource ? `/${ref.subresource}` : '';
  return `${ref?.resource ?? '?'}${sub} ${line.verb ?? '?'}`;
}

/** The lines of `user`'s requests, once per auditID. */
function* requestsOf(lines: Iterable<string>, user: string): Generator<AuditFields> {
  const seen = new Set<string>();
  for (const text of lines) {
    const line = text.trim() ? parsed(text) : undefined;
    if (line?.user?.username !== user) continue;
    if (line.auditID && seen.has(line.auditID)) continue;
    if (line.auditID) seen.add(line.auditID);
    yield line;
  }
}

/** `user`'s requests answered 409, by "resource[/subresource] verb", once per auditID. */
export function conflictsByVerb(lines: Iterable<string>, user: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of requestsOf(lines, user)) {
    if (line.responseStatus?.code !== 409) continue;
    out[verbKey(line)] = (out[verbKey(line)] ?? 0) + 1;
  }
  return out;
}

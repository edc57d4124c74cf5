// A coordination.k8s.io Lease kept by this process (core/lease.ts decides):
// read every RETRY_MS, renewed while held, taken over once its holder's
// renewal is past the lease's duration. Every write carries the Lease's
// resourceVersion, so two processes never both take it.
import type { Logger } from 'pino';
import { heldSpec, leaseStep, releasedSpec, type LeaseSpec } from '../core/lease.ts';
import { apiErrorKind } from './errors.ts';
import type { Rest } from './rest.ts';

interface LeaseObject {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

export interface KeptLease {
  /** This process holds the Lease now: its last write was accepted less than the duration ago. */
  held(): boolean;
  /**
   * Stops, and gives the Lease up if held, within `withinMs`: a release the
   * API server has not answered by then is abandoned, and the Lease runs out
   * on its own, its duration after its last renewal.
   */
  stop(withinMs: number): Promise<void>;
}

export interface LeaseOptions {
  rest: Rest;
  namespace: string;
  name: string;
  identity: string;
  log: Logger;
  /** Told each time the hold starts or ends. */
  changed?: (held: boolean) => void;
  durationSeconds?: number;
  /** The first read waits this long: a cold start's first request does not share the CPU with it. */
  startAfterMs?: number;
  now?: () => Date;
}

/** As client-go's leader election defaults, shortened: 15 s lease, read every 5 s. */
const DURATION_SECONDS = 15;

/** One read of the Lease and the write it calls for; returns the Lease as written, or undefined when it is another's. */
async function takeOrRenew(opts: LeaseOptions, path: string, at: Date): Promise<LeaseObject | undefined> {
  const { rest, name, identity } = opts;
  const lease = await rest<LeaseObject>('GET', `${path}/${name}`).catch((error: unknown) => {
    if (apiErrorKind(error) === 'not-found') return undefined;
    throw error;
  });
  const step = leaseStep(lease?.spec, identity, at);
  if (step === 'wait') return undefined;
  const spec = heldSpec(lease?.spec, identity, at, opts.durationSeconds ?? DURATION_SECONDS);
  const written = lease
    ? await rest<LeaseObject>('PUT', `${path}/${name}`, { body: { ...lease, spec } })
    : await rest<LeaseObject>('POST', path, {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec },
      });
  if (step !== 'renew') opts.log.info({ lease: name }, 'Lease taken: this process writes the counters');
  return written;
}

export function keepLease(opts: LeaseOptions): KeptLease {
  const { rest, name, log, changed = () => {}, now = () => new Date() } = opts;
  const duration = opts.durationSeconds ?? DURATION_SECONDS;
  const path = `/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases`;
  const state = { heldUntil: 0, stopped: false, told: false, last: undefined as LeaseObject | undefined };
  const held = () => now().getTime() < state.heldUntil;
  const tell = () => {
    if (held() === state.told) return;
    state.told = !state.told;
    changed(state.told);
  };

  async function once(): Promise<void> {
    const at = now();
    try {
      state.last = await takeOrRenew(opts, path, at);
      state.heldUntil = state.last ? at.getTime() + duration * 1000 : 0;
    } catch (error) {
      // Refused (another process wrote it first: 409) or unreachable: held only until the last renewal runs out.
      if (apiErrorKind(error) !== 'conflict') log.warn({ err: error, lease: name }, 'Lease not renewed');
    }
    tell();
  }

  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    await once();
    if (!state.stopped) timer = setTimeout(() => void loop(), (duration * 1000) / 3).unref();
  };
  timer = setTimeout(() => void loop(), opts.startAfterMs ?? 0).unref();

  return {
    held,
    async stop(withinMs) {
      state.stopped = true;
      clearTimeout(timer);
      const spec = state.last?.spec;
      if (!held() || !spec) return;
      state.heldUntil = 0;
      tell();
      const late = () => log.warn({ lease: name, withinMs }, 'Lease not given up in time: it runs out on its own');
      if (withinMs <= 0) return late();
      const body = { ...state.last, spec: releasedSpec(spec, now()) };
      const abort = new AbortController();
      const bound = setTimeout(() => abort.abort(), withinMs);
      try {
        await rest('PUT', `${path}/${name}`, { body, signal: abort.signal });
      } catch (error) {
        if (abort.signal.aborted) late();
        // Refused (409): another process wrote it since, so it is no longer this one's to give up.
        else if (apiErrorKind(error) !== 'conflict')
          log.warn({ err: error, lease: name }, 'Lease not given up: it runs out on its own');
      } finally {
        clearTimeout(bound);
      }
    },
  };
}

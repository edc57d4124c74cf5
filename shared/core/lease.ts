// Who writes the CascadeAutoOperators' counters: the holder of a
// coordination.k8s.io Lease, taken and renewed as controllers' leader election
// does. The Lease only spares the replicas writing the same counters at once:
// the counters' correctness does not depend on it (tally.ts). Pure.

/** The Lease's spec, as far as it decides anything. */
export interface LeaseSpec {
  holderIdentity?: string | undefined;
  leaseDurationSeconds?: number | undefined;
  renewTime?: string | undefined;
  acquireTime?: string | undefined;
  leaseTransitions?: number | undefined;
}

/** What to do with the Lease as read: make it, renew it, take it over, or leave it to its holder. */
export type LeaseStep = 'create' | 'renew' | 'take' | 'wait';

/** The holder's renewal is past its duration, by this process's clock. */
export function expired(spec: LeaseSpec, now: Date): boolean {
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (!Number.isFinite(renewed)) return true;
  return now.getTime() > renewed + (spec.leaseDurationSeconds ?? 0) * 1000;
}

export function leaseStep(spec: LeaseSpec | undefined, me: string, now: Date): LeaseStep {
  if (!spec) return 'create';
  if (spec.holderIdentity === me) return 'renew';
  if (!spec.holderIdentity || expired(spec, now)) return 'take';
  return 'wait';
}

/** A MicroTime as the API server reads it: six fraction digits. */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The spec this process writes for `step` at `now`. */
export function heldSpec(spec: LeaseSpec | undefined, me: string, now: Date, durationSeconds: number): LeaseSpec {
  const at = microTime(now);
  if (spec?.holderIdentity === me) return { ...spec, renewTime: at, leaseDurationSeconds: durationSeconds };
  const transitions = (spec?.leaseTransitions ?? 0) + (spec?.holderIdentity ? 1 : 0);
  return {
    holderIdentity: me,
    leaseDurationSeconds: durationSeconds,
    acquireTime: at,
    renewTime: at,
    leaseTransitions: transitions,
  };
}

/** The spec with this process's hold given up, so that another takes it at once. */
export function releasedSpec(spec: LeaseSpec, now: Date): LeaseSpec {
  return { ...spec, holderIdentity: '', renewTime: microTime(now), leaseDurationSeconds: 1 };
}

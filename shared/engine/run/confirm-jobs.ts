// A Job event's copy of a Job is a claim. Any client that may post to the
// Broker can send one, with any name, uid and status. Before a claim moves a
// run, the API server's copy of the Job is taken instead, and decided on.
// The function's own watch of its Jobs holds that copy when it showed the Job
// finished as claimed: process/watched-jobs.ts. Else the Job is read once.
import { observeJob, type ObservedJob } from '../../core/observed-job.ts';
import type { IgnoredJob } from '../../core/job-identity.ts';
import type { EngineDeps } from '../deps.ts';

export interface Confirmed {
  /** The Jobs as the API server holds them; a Job it does not hold is shown gone, its outcome unknown. */
  jobs: ObservedJob[];
  /** Claims the API server contradicted: another uid, another state, or gone when it still exists. */
  contradicted: IgnoredJob[];
}

function gone(claim: ObservedJob): ObservedJob {
  return {
    name: claim.name,
    run: claim.run,
    step: claim.step,
    attempt: claim.attempt,
    state: 'Active',
    deleting: false,
    gone: true,
  };
}

function agrees(claim: ObservedJob, held: ObservedJob | undefined): boolean {
  if (!held) return Boolean(claim.gone);
  return !claim.gone && held.uid === claim.uid && held.state === claim.state;
}

/** The API server's copy of the claimed Job: the watch's, when it shows the Job finished as claimed, else one read. */
async function held(deps: Pick<EngineDeps, 'store' | 'heldJobs' | 'hooks'>, claim: ObservedJob) {
  const watched = claim.uid && !claim.gone ? deps.heldJobs.finished(claim.name, claim.uid, claim.state) : undefined;
  deps.hooks.confirmed(watched ? 'watch' : 'read');
  if (watched) return watched;
  const job = await deps.store.getJob(claim.name);
  return job ? observeJob(job) : undefined;
}

export async function confirmJobs(
  deps: Pick<EngineDeps, 'store' | 'heldJobs' | 'hooks'>,
  claims: readonly ObservedJob[],
): Promise<Confirmed> {
  const copies = await Promise.all(claims.map((claim) => held(deps, claim)));
  const confirmed: Confirmed = { jobs: [], contradicted: [] };
  for (const [i, claim] of claims.entries()) {
    const copy = copies[i];
    confirmed.jobs.push(copy ?? gone(claim));
    if (!agrees(claim, copy))
      confirmed.contradicted.push({ name: claim.name, step: claim.step, reason: 'unconfirmed' });
  }
  return confirmed;
}

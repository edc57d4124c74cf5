// A run looked at again because a list showed its next move due: the
// janitor's sweep and the function's first sync. A resume its annotation asks
// for is applied; a run not started yet gets its operator's word first
// (admission.ts); anything else is a plain look. All through reconcileRun, the
// loop every event uses: the run is read and its Jobs listed afresh.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { annotationResume, pendingResume } from '../../core/resume.ts';
import type { EngineDeps } from '../deps.ts';
import { admissionInSweep } from '../operator/admission.ts';
import { reconcileRun, type ReconcileResult } from './reconcile.ts';

/**
 * `deps` is one pass's: its operators are read once per `deps` object
 * (admission.ts admissionInSweep), so each pass gives a copy of its own.
 */
export async function lookAgain(deps: EngineDeps, run: CascadeRun): Promise<ReconcileResult> {
  const resume = pendingResume(run);
  return reconcileRun(deps, run.metadata.name, resume === undefined ? { kind: 'Observe' } : annotationResume(resume), {
    admission: await admissionInSweep(deps, run),
  });
}

// One-shot requests a user makes with kubectl, as annotations on the
// CascadeRun (the idiom of `kubectl rollout restart` and Flux's
// `reconcile.fluxcd.io/requestedAt`): a request is pending while its
// annotation's value differs from the value the run's status records as
// handled. Read from the object alone, so that an ApiServerSource event of a
// CascadeRun (most are Cascade's own status writes) costs no API call when
// nothing is pending. Pure. A new request is one line of ANNOTATION_REQUESTS.
import type { CascadeRunStatus } from '../api/cascade-run.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT, ANNOTATION_RESUME_REQUESTED_AT } from '../names.ts';
import { annotationResume } from './resume.ts';
import type { Fact } from './types.ts';

/** The status fields that record a request's value as handled. */
export type HandledField = Extract<keyof CascadeRunStatus, `lastHandled${string}`>;

export interface AnnotationRequest {
  annotation: string;
  handled: HandledField;
  /** The fact the request brings, from the annotation's value. */
  fact: (value: string) => Fact;
}

export const ANNOTATION_REQUESTS: readonly AnnotationRequest[] = [
  { annotation: ANNOTATION_CANCEL_REQUESTED_AT, handled: 'lastHandledCancel', fact: () => ({ kind: 'Cancel' }) },
  { annotation: ANNOTATION_RESUME_REQUESTED_AT, handled: 'lastHandledResume', fact: annotationResume },
];

/** As much of a CascadeRun as the question needs (an event's object, or the run as stored). */
export interface RunObject {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
  status?: Partial<Record<HandledField, unknown>> | undefined;
}

export interface PendingRequest {
  request: AnnotationRequest;
  value: string;
}

export function pendingRequests(run: RunObject): PendingRequest[] {
  const annotations = run.metadata?.annotations ?? {};
  return ANNOTATION_REQUESTS.flatMap((request) => {
    const value = annotations[request.annotation];
    if (typeof value !== 'string' || value === '' || run.status?.[request.handled] === value) return [];
    return [{ request, value }];
  });
}

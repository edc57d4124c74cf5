// What the engine made of a request, in its own terms. How each outcome is
// answered (HTTP status, body) belongs to the function: functions/cascade/reply.ts.
export type Outcome =
  /** Taken: the run exists and moved, or the fact was applied, recorded or a harmless duplicate. */
  | { kind: 'accepted'; body: Record<string, unknown> }
  /** Bad input: sending it again cannot help. */
  | { kind: 'invalid'; reason: string }
  /** Trouble a retry can fix: the Kubernetes API, a draining process, an operator being deleted. */
  | { kind: 'unavailable'; reason: string }
  /** The deployment cannot do it (an unusable scenario, a refusal of the API server): retrying alone will not help. */
  | { kind: 'failed'; reason: string };

export const accepted = (body: Record<string, unknown>): Outcome => ({ kind: 'accepted', body });
export const invalid = (reason: string): Outcome => ({ kind: 'invalid', reason });
export const unavailable = (reason: string): Outcome => ({ kind: 'unavailable', reason });
export const failed = (reason: string): Outcome => ({ kind: 'failed', reason });

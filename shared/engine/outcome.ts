// What an entry point replies, decided by the engine in HTTP terms: 2xx when
// accepted, 400 with a one-line reason for bad input, 503 for trouble a retry
// can fix. Kubernetes API statuses never appear here.
export interface Outcome {
  statusCode: number;
  body: Record<string, unknown>;
}

export const accepted = (body: Record<string, unknown>): Outcome => ({ statusCode: 200, body });
export const invalid = (reason: string): Outcome => ({ statusCode: 400, body: { error: reason } });
export const unavailable = (reason: string): Outcome => ({ statusCode: 503, body: { error: reason } });
export const failed = (reason: string): Outcome => ({ statusCode: 500, body: { error: reason } });

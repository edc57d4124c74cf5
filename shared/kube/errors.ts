// Kubernetes API errors classified at the boundary, so that no API status
// leaks out as a reply: conflicts are retried, transient trouble is answered
// 503 for the sender to retry, anything else is an internal error.
// See docs/architecture.md#errors-classified-at-the-boundary.
export type ApiErrorKind = 'conflict' | 'not-found' | 'invalid' | 'transient' | 'refused';

export function apiStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

export function apiErrorKind(error: unknown): ApiErrorKind {
  const status = apiStatus(error);
  if (status === undefined) return 'transient'; // network: refused, reset, timed out
  if (status === 409) return 'conflict';
  if (status === 404 || status === 410) return 'not-found';
  if (status === 400 || status === 422) return 'invalid';
  if (status === 429 || status >= 500) return 'transient';
  return 'refused';
}

/** The API server's own words, for logs and Failed conditions. */
export function apiMessage(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      return body.slice(0, 300);
    }
  }
  const message = (body as { message?: string } | undefined)?.message;
  return message ?? (error instanceof Error ? error.message : String(error));
}

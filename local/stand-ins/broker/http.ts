// The HTTP side of the stand-in: reading a request's body, and sending a
// CloudEvent in binary mode as Knative's dispatcher does (with `Prefer:
// reply`), answered or not within the attempt's timeout.
import type { IncomingMessage } from 'node:http';
import { toBinary, type CloudEvent } from './cloudevent.ts';
import type { Answer } from './dispatch.ts';

export async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function causeOf(error: unknown): string {
  const e = error as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e.name === 'TimeoutError') return 'timeout: no answer within the delivery timeout';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

export async function sendEvent(
  target: string,
  event: CloudEvent,
  timeoutMs: number | undefined,
  stop: AbortSignal,
): Promise<Answer> {
  const { headers, body } = toBinary(event);
  const signal = timeoutMs === undefined ? stop : AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]);
  const started = performance.now();
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: { ...headers, prefer: 'reply' },
      body: body as Uint8Array<ArrayBuffer>,
      signal,
    });
    const answer = new Uint8Array(await res.arrayBuffer());
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body: answer,
      ms: performance.now() - started,
    };
  } catch (error) {
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    return {
      headers: {},
      body: new Uint8Array(),
      error: causeOf(error),
      ms: performance.now() - started,
      ...(timedOut ? { timedOut } : {}),
    };
  }
}

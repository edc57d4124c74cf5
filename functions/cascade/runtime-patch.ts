// faas-js-runtime validates CloudEvents before calling the function and lets
// the cloudevents SDK's ValidationError through to fastify, which answers 500
// for it: an event missing `source` or `type` would be retried forever by the
// broker. Bad input is a 400 (design note 3), so the error class of the SDK
// copy that the runtime loads is given that status. Nothing else changes.
import { createRequire } from 'node:module';

export function answerInvalidCloudEventsWith400(): void {
  const runtime = createRequire(import.meta.url).resolve('faas-js-runtime');
  const sdk = createRequire(runtime)('cloudevents') as { ValidationError?: { prototype: { statusCode?: number } } };
  if (sdk.ValidationError) sdk.ValidationError.prototype.statusCode = 400;
}

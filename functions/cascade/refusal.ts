// What a request refused before the function (by fastify while it reads the
// body, or by the CloudEvents SDK) is answered: the status and a reason in
// Cascade's words, as every other reply. Pure.

/** What the runtime's error tells: fastify's `code` and `statusCode`, the SDK's validation errors. */
export interface RuntimeError {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  /** Set when the error is the CloudEvents SDK's ValidationError: its schema errors (ajv's). */
  cloudEventErrors?: readonly unknown[];
}

export interface Refusal {
  statusCode: number;
  reason: string;
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]!.trim();
}

function cloudEventDetail(errors: readonly unknown[], message: string | undefined): string {
  const first = errors[0] as { instancePath?: string; message?: string } | undefined;
  if (!first?.message) return firstLine(message);
  return first.instancePath ? `${first.instancePath.replace(/^\//, '')}: ${first.message}` : first.message;
}

/** How a refusal before the function is answered; undefined when the error is no refusal (a fault: 500). */
export function refusalOf(error: RuntimeError, bodyLimit: number): Refusal | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return { statusCode: 413, reason: `the body is larger than the limit of ${bodyLimit} bytes` };
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return { statusCode: 400, reason: 'the body is empty: a JSON object was expected' };
  if (error.cloudEventErrors)
    return {
      statusCode: 400,
      reason: `not a valid CloudEvent: ${cloudEventDetail(error.cloudEventErrors, error.message)}`,
    };
  const status = error.statusCode;
  if (status === undefined || status < 400 || status > 499) return undefined;
  if (error.name === 'SyntaxError' && /prototype property/.test(error.message ?? '')) {
    return {
      statusCode: 400,
      reason: 'the body is refused: a JSON key "__proto__" or "constructor" with "prototype" could poison objects',
    };
  }
  if (error.name === 'SyntaxError')
    return { statusCode: 400, reason: `the body is not JSON: ${firstLine(error.message)}` };
  return { statusCode: status, reason: firstLine(error.message) };
}

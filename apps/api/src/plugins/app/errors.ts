import fp from 'fastify-plugin';
import { z } from 'zod';
import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { IdempotencyConflictError, isDatabaseUnavailable, CursorError } from '@tunelab/results-db';
import { ApiError, pointer, sendProblem, type FieldError } from '../../problem.ts';

/** Turns every error into RFC 9457 problem+json with field paths and the request id. */
export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const err = toApiError(error, request.routeOptions.url, request.method);
      if (err.status >= 500) request.log.error({ err: error }, 'request failed');
      else request.log.info({ code: err.code, detail: err.message }, 'request refused');
      return sendProblem(reply, request, err);
    });
    app.setNotFoundHandler((request, reply) =>
      sendProblem(
        reply,
        request,
        new ApiError('not-found', `no route for ${request.method} ${request.url.split('?')[0]}`),
      ),
    );
  },
  { name: 'errors' },
);

function toApiError(error: FastifyError, route: string | undefined, method: string): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const at = (path: string) => (where === 'body' ? path : `${where}:${path}`);
    const errors: FieldError[] = error.validation.flatMap((v) => {
      const base = v.instancePath === '/' ? '' : v.instancePath;
      // An unknown key is reported at its own path, so the client sees which key to remove.
      const keys = (v.params as { keys?: unknown }).keys;
      if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
        return keys.map((k) => ({ path: at(`${base}/${String(k)}`), message: 'unknown key' }));
      }
      return [{ path: at(v.instancePath || '/'), message: v.message ?? 'invalid' }];
    });
    return new ApiError(
      'validation-failed',
      `${where} is invalid: ${firstThree(
        errors.map((e) => `${e.path} ${e.message}`),
        '; ',
      )}`,
      errors,
    );
  }
  // A write's response the contract refuses is this code's fault (and the write may have happened):
  // the generic 500, its detail only in the log.
  if (isResponseSerializationError(error) && method !== 'GET' && method !== 'HEAD')
    return new ApiError('internal', `response for ${method} ${route} did not match its schema`);
  if (isResponseSerializationError(error)) {
    // A read's response the contract refuses, almost always a stored record written around the
    // API (or by an older version): the data, not the request, is wrong. The paths (contract fields, no
    // values) tell an operator which record and field to look at; the log has the rest.
    // The serializer's cause is zod core's $ZodError (not the `zod` package's ZodError class).
    const issues = error.cause instanceof z.core.$ZodError ? error.cause.issues : [];
    const at = [...new Set(issues.map((i) => pointer(i.path)))];
    return new ApiError(
      'stored-record-invalid',
      `the response for ${route ?? 'this route'} does not satisfy its contract${at.length > 0 ? ` at ${firstThree(at, ', ')}` : ''} (usually a stored record written around the API); the request is fine, retrying will not help: quote the request id when reporting it`,
    );
  }
  if (error instanceof IdempotencyConflictError) return new ApiError('idempotency-conflict', error.message);
  if (error instanceof CursorError)
    return new ApiError('validation-failed', error.message, [{ path: 'querystring:/cursor', message: error.message }]);
  if (isDatabaseUnavailable(error))
    return new ApiError(
      'database-unavailable',
      'The results database is not reachable; nothing was stored. Retry later.',
      undefined,
      { 'retry-after': '5' },
    );
  switch (error.code) {
    case 'FST_ERR_HANDLER_TIMEOUT':
      return new ApiError('timed-out', timedOutSentence(route, method), undefined, { 'retry-after': '5' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload-too-large', error.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('unsupported-media-type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('bad-request', 'the request body is empty; send a JSON document', [
        { path: '/', message: 'required' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('bad-request', `the body is not valid JSON: ${error.message}`, [
        { path: '/', message: 'invalid JSON' },
      ]);
  }
  if (error.statusCode === 429) return new ApiError('rate-limited', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('bad-request', error.message, [{ path: pointer([]), message: error.message }]);
  }
  return new ApiError('internal');
}

/** A submission (POST /v1/runs) may have been stored: it is retried with its key; anything else just later. */
function timedOutSentence(route: string | undefined, method: string): string {
  return method === 'POST' && route === '/v1/runs'
    ? 'The request did not finish in time; retry later with the same Idempotency-Key (a run stored meanwhile is answered as a replay, never stored twice).'
    : 'The request did not finish in time; retry later.';
}

/** The first three of `items` joined, and how many more there are. */
function firstThree(items: readonly string[], separator: string): string {
  return `${items.slice(0, 3).join(separator)}${items.length > 3 ? ` (and ${items.length - 3} more)` : ''}`;
}

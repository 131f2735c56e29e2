import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '@tunelab/contracts';

/** The API's one error type: a code that maps to a status and a problem type. */
export const ERROR_CODES = {
  'bad-request': { status: 400, title: 'Bad request' },
  'validation-failed': { status: 400, title: 'The request does not match the schema' },
  unauthorized: { status: 401, title: 'Missing or invalid runner token' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'idempotency-conflict': { status: 409, title: 'Idempotency-Key reused with a different body' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'runner-too-old': { status: 426, title: 'Runner version too old' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal server error' },
  'database-unavailable': { status: 503, title: 'Results database unavailable' },
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export type FieldError = { path: string; message: string };

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CODES[code].title);
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const PROBLEM_BASE = 'https://tunelab.dev/problems/';

export function problemOf(err: ApiError, request: FastifyRequest): Problem {
  const { status, title } = ERROR_CODES[err.code];
  return {
    type: PROBLEM_BASE + err.code,
    title,
    status,
    // 5xx details never leak: the log has them, keyed by request id.
    detail: status >= 500 && err.code !== 'database-unavailable' ? 'An unexpected error occurred; quote the request id when reporting it.' : err.message,
    instance: request.url.split('?')[0],
    requestId: String(request.id),
    ...(err.errors && err.errors.length > 0 ? { errors: err.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: ApiError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type('application/problem+json; charset=utf-8').send(problemOf(err, request));
}

/** `/samples/0/value` style JSON Pointer (RFC 6901) for a zod issue path. */
export function pointer(path: readonly PropertyKey[]): string {
  return '/' + path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

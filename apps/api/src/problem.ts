import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '@tunelab/contracts';

/** The API's one error type: a code that maps to a status and a problem type. */
export const ERROR_CODES = {
  'bad-request': { status: 400, title: 'Bad request' },
  'validation-failed': { status: 400, title: 'The request does not match the schema' },
  unauthorized: { status: 401, title: 'Missing or invalid runner token' },
  forbidden: { status: 403, title: 'This token may not do that' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'Request not received in time' },
  'idempotency-conflict': { status: 409, title: 'Idempotency-Key reused with a different body' },
  'job-conflict': { status: 409, title: 'The job is not this agent’s, or already has its run' },
  'job-mismatch': { status: 422, title: 'The run is not what the job asked for' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'runner-too-old': { status: 426, title: 'Runner version too old' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  // A 5xx detail is shown only where it says what a client may do (retry later) or which contract
  // field of a stored record is wrong (no values); the others say only "unexpected error".
  'stored-record-invalid': {
    status: 500,
    title: 'A stored record does not satisfy the response contract',
    showDetail: true,
  },
  'database-unavailable': { status: 503, title: 'Results database unavailable', showDetail: true },
  'timed-out': { status: 503, title: 'The request did not finish in time', showDetail: true },
} as const satisfies Record<string, { status: number; title: string; showDetail?: true }>;
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
    // 5xx details never leak (the log has them, keyed by request id) unless the code shows them.
    detail:
      status >= 500 && !('showDetail' in ERROR_CODES[err.code])
        ? 'An unexpected error occurred; quote the request id when reporting it.'
        : err.message,
    instance: request.url.split('?')[0],
    requestId: String(request.id),
    ...(err.errors && err.errors.length > 0 ? { errors: err.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: ApiError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type('application/problem+json; charset=utf-8').send(problemOf(err, request));
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (a request not received within
 * requestTimeout, headers too large, malformed HTTP): answered as problem+json too, with a fresh
 * request id, then the connection is closed — as Fastify's default handler does, in our format.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'request-timeout'
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers-too-large'
        : 'bad-request';
  const detail =
    code === 'request-timeout'
      ? 'the request (headers and body) was not received within the time allowed; nothing was stored'
      : code === 'headers-too-large'
        ? 'the request line or headers are too large'
        : 'the request is not valid HTTP';
  const requestId = randomUUID();
  const { status, title } = ERROR_CODES[code];
  const body = JSON.stringify({ type: PROBLEM_BASE + code, title, status, detail, requestId } satisfies Problem);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** `/samples/0/value` style JSON Pointer (RFC 6901) for a zod issue path. */
export function pointer(path: readonly PropertyKey[]): string {
  return '/' + path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

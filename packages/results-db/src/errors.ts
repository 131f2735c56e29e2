/** Errors the results database raises on purpose; anything else is a bug or an outage. */
export class IdempotencyConflictError extends Error {
  readonly code = 'idempotency-conflict';
  constructor(
    readonly idempotencyKey: string,
    readonly existingRunId: string,
  ) {
    super(`Idempotency-Key ${idempotencyKey} was already used for a different submission (run ${existingRunId})`);
  }
}

/** The runner's token was revoked (or its runner removed) before the run was stored: nothing is stored. */
export class RunnerRevokedError extends Error {
  readonly code = 'runner-revoked';
  constructor(readonly runnerId: string) {
    super(`runner ${runnerId} is revoked`);
  }
}

const UNAVAILABLE_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2028',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  // statement_timeout / idle_in_transaction_session_timeout: the database did not answer in time.
  '57014',
  '25P03',
]);
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'DatabaseDoesNotExist',
  'TransactionAlreadyClosed',
]);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection (?:closed|refused|reset)|ECONNREFUSED|ECONNRESET|Can't reach database|terminating connection|server closed the connection|Client has encountered a connection error|timeout exceeded when trying to connect|Transaction already closed|Cannot use a pool after calling end|Query read timeout|connection timeout|canceling statement due to statement timeout/i;

/** True when an error means "the results database is not reachable right now" (→ HTTP 503). */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const e = err as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; originalCode?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.originalCode === 'string' && UNAVAILABLE_CODES.has(e.originalCode)) return true;
  if (typeof e.kind === 'string' && UNAVAILABLE_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** Unique-constraint violation, through Prisma (P2002) or the raw driver (23505). */
export function isUniqueViolation(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const e = err as { code?: unknown; kind?: unknown; cause?: unknown; originalCode?: unknown };
  if (e.code === 'P2002' || e.code === '23505' || e.originalCode === '23505' || e.kind === 'UniqueConstraintViolation')
    return true;
  return isUniqueViolation(e.cause, depth + 1);
}

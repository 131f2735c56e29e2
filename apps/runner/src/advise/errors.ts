/** Why `tunelab advise` could not read a server, each kind with its exit code (README "Exit codes"). */
import { redactTarget } from '../engines/target-url.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

export type AdviseFailure = 'usage' | 'unreachable' | 'auth' | 'privilege' | 'read';

export class AdviseError extends Error {
  constructor(
    readonly kind: AdviseFailure,
    message: string,
  ) {
    super(message);
    this.name = 'AdviseError';
  }

  /** 2 bad input; 3 the server does not answer; 1 it answered but refused the login or the read. */
  get exitCode(): ExitCode {
    if (this.kind === 'usage') return EXIT.USAGE;
    if (this.kind === 'unreachable') return EXIT.TARGET_UNREACHABLE;
    return EXIT.RUN_FAILED;
  }
}

const PG_AUTH = new Set(['28P01', '28000']);
const PG_PRIVILEGE = new Set(['42501']);
const MYSQL_AUTH = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE']);
const MYSQL_PRIVILEGE = new Set([
  'ER_DBACCESS_DENIED_ERROR',
  'ER_SPECIFIC_ACCESS_DENIED_ERROR',
  'ER_TABLEACCESS_DENIED_ERROR',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** A connection (or first query) failure as a sentence naming the server, classified. */
export function classifyConnectError(e: unknown, url: string): AdviseError {
  const err = e as Error & { code?: string; errno?: number };
  const where = redactTarget(url);
  const code = err.code ?? '';
  if (PG_AUTH.has(code) || MYSQL_AUTH.has(code))
    return new AdviseError('auth', `${where} refused the login: ${err.message}`);
  if (PG_PRIVILEGE.has(code) || MYSQL_PRIVILEGE.has(code))
    return new AdviseError('privilege', `${where}: insufficient privilege: ${err.message}`);
  if (code === '3D000' || code === 'ER_BAD_DB_ERROR')
    return new AdviseError('usage', `${where}: no such database: ${err.message}`);
  if (NETWORK.has(code) || /timeout|terminated unexpectedly|Connection terminated/i.test(err.message))
    return new AdviseError('unreachable', `cannot reach ${where}: ${err.message || code}`);
  return new AdviseError('read', `could not read ${where}: ${err.message || code}`);
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from './generated/prisma/client.ts';
import { sha256Hex } from '@tunelab/scenarios';
import type { DbContext, Queries } from './context.ts';

const TOKEN_PREFIX = 'tlr_';
/** Operator tokens request fleet jobs; they are never accepted where a runner token is expected. */
const OPERATOR_PREFIX = 'tlo_';

export type TokenKind = 'runner' | 'operator';
const RUNNER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Letters, digits, spaces and a little punctuation: shown on the public site and in the API. */
const PUBLIC_LABEL = /^[\p{L}\p{N}][\p{L}\p{N} ._(),/+-]{0,63}$/u;

export class RunnerNameError extends Error {}

export type RunnerIdentity = { id: string; name: string };

function checkPublicLabel(label: string | null): void {
  if (label !== null && !PUBLIC_LABEL.test(label)) {
    throw new RunnerNameError(
      `public label ${JSON.stringify(label)} must be 1–64 letters, digits, spaces or . _ ( ) , / + - and start with a letter or digit`,
    );
  }
}

/** Mints a token shown once (a runner's, or an operator's with `kind`); only its sha256 is stored. `publicLabel` is what public responses show (default: nothing). */
export async function createRunner(
  prisma: PrismaClient,
  name: string,
  { publicLabel = null, kind = 'runner' }: { publicLabel?: string | null; kind?: TokenKind } = {},
): Promise<{ id: string; name: string; token: string }> {
  if (!RUNNER_NAME.test(name)) {
    throw new RunnerNameError(
      `runner name ${JSON.stringify(name)} must be 1–64 letters, digits, . _ - and start with a letter or digit`,
    );
  }
  checkPublicLabel(publicLabel);
  const token = (kind === 'operator' ? OPERATOR_PREFIX : TOKEN_PREFIX) + randomBytes(32).toString('base64url');
  try {
    const runner = await prisma.runner.create({
      data: { name, tokenHash: sha256Hex(token), publicLabel, kind },
      select: { id: true, name: true },
    });
    return { ...runner, token };
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new RunnerNameError(`a runner named ${name} already exists`);
    throw err;
  }
}

/** Sets (or with null removes) the label public responses show for runner `name`; false if there is no such runner. */
export async function setPublicLabel(prisma: PrismaClient, name: string, label: string | null): Promise<boolean> {
  checkPublicLabel(label);
  const r = await prisma.runner.updateMany({ where: { name }, data: { publicLabel: label } });
  return r.count > 0;
}

export async function revokeRunner(prisma: PrismaClient, name: string): Promise<boolean> {
  const r = await prisma.runner.updateMany({ where: { name, revokedAt: null }, data: { revokedAt: new Date() } });
  return r.count > 0;
}

export async function listRunners(prisma: PrismaClient) {
  return prisma.runner.findMany({
    orderBy: { createdAt: 'asc' },
    select: { name: true, kind: true, publicLabel: true, createdAt: true, lastSeenAt: true, revokedAt: true },
  });
}

/**
 * Returns the runner a bearer token belongs to, or null for unknown and revoked tokens.
 * The lookup is by the token's hash; the stored hash is then compared in constant time so that
 * the answer's timing does not depend on how much of a guessed hash matched.
 */
export async function authenticateRunner(
  prisma: PrismaClient,
  token: string,
  kind: TokenKind = 'runner',
): Promise<RunnerIdentity | null> {
  if (!token.startsWith(kind === 'operator' ? OPERATOR_PREFIX : TOKEN_PREFIX) || token.length > 200) return null;
  const hash = sha256Hex(token);
  const runner = await prisma.runner.findUnique({
    where: { tokenHash: hash },
    select: { id: true, name: true, tokenHash: true, revokedAt: true, kind: true },
  });
  const expected = Buffer.from(runner?.tokenHash ?? '0'.repeat(64), 'utf8');
  const ok = timingSafeEqual(expected, Buffer.from(hash, 'utf8'));
  if (!runner || !ok || runner.revokedAt || runner.kind !== kind) return null;
  return { id: runner.id, name: runner.name };
}

/** Runner and operator tokens as `ResultsDb` methods (see context.ts). */
export const runnerQueries = {
  /** Mints a runner token (default) or an operator token (`kind: 'operator'`, requests fleet jobs); `publicLabel`: how public responses name the runner (default: they do not). */
  createRunner: (db: DbContext, name: string, options?: { publicLabel?: string | null; kind?: TokenKind }) =>
    createRunner(db.prisma, name, options),
  setPublicLabel: (db: DbContext, name: string, label: string | null) => setPublicLabel(db.prisma, name, label),
  revokeRunner: (db: DbContext, name: string) => revokeRunner(db.prisma, name),
  listRunners: (db: DbContext) => listRunners(db.prisma),
  authenticateRunner: (db: DbContext, token: string, kind?: TokenKind) => authenticateRunner(db.prisma, token, kind),
} satisfies Queries;

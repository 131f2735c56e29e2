import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from './generated/prisma/client.ts';
import { sha256Hex } from '@tunelab/scenarios';

const TOKEN_PREFIX = 'tlr_';
const RUNNER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class RunnerNameError extends Error {}

export type RunnerIdentity = { id: string; name: string };

/** Mints a token shown once; only its sha256 is stored. */
export async function createRunner(
  prisma: PrismaClient,
  name: string,
): Promise<{ id: string; name: string; token: string }> {
  if (!RUNNER_NAME.test(name)) {
    throw new RunnerNameError(
      `runner name ${JSON.stringify(name)} must be 1–64 letters, digits, . _ - and start with a letter or digit`,
    );
  }
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  try {
    const runner = await prisma.runner.create({
      data: { name, tokenHash: sha256Hex(token) },
      select: { id: true, name: true },
    });
    return { ...runner, token };
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new RunnerNameError(`a runner named ${name} already exists`);
    throw err;
  }
}

export async function revokeRunner(prisma: PrismaClient, name: string): Promise<boolean> {
  const r = await prisma.runner.updateMany({ where: { name, revokedAt: null }, data: { revokedAt: new Date() } });
  return r.count > 0;
}

export async function listRunners(prisma: PrismaClient) {
  return prisma.runner.findMany({
    orderBy: { createdAt: 'asc' },
    select: { name: true, createdAt: true, lastSeenAt: true, revokedAt: true },
  });
}

/**
 * Returns the runner a bearer token belongs to, or null for unknown and revoked tokens.
 * The lookup is by the token's hash; the stored hash is then compared in constant time so that
 * the answer's timing does not depend on how much of a guessed hash matched.
 */
export async function authenticateRunner(prisma: PrismaClient, token: string): Promise<RunnerIdentity | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const hash = sha256Hex(token);
  const runner = await prisma.runner.findUnique({
    where: { tokenHash: hash },
    select: { id: true, name: true, tokenHash: true, revokedAt: true },
  });
  const expected = Buffer.from(runner?.tokenHash ?? '0'.repeat(64), 'utf8');
  const ok = timingSafeEqual(expected, Buffer.from(hash, 'utf8'));
  if (!runner || !ok || runner.revokedAt) return null;
  return { id: runner.id, name: runner.name };
}

/**
 * The registry's subresource-integrity string for a tarball (`dist.integrity`), checked before a
 * download is trusted. Only sha512, sha384 and sha256 entries count. An SRI string may list several
 * entries separated by white space (each `<algorithm>-<base64>`, optionally followed by `?options`);
 * as the SRI spec says, the strongest algorithm listed is used and any entry of that algorithm that
 * matches is a match. A registry that gives only a sha1 `shasum`, only weak or unknown algorithms,
 * or nothing, is refused: a server build is never installed unchecked.
 */
import { createHash, type Hash } from 'node:crypto';
import { RunFailed } from '../../../errors.ts';

/** Accepted algorithms, strongest first, with the length of their base64 digest. */
const ACCEPTED = [
  { algorithm: 'sha512', base64Length: 88 },
  { algorithm: 'sha384', base64Length: 64 },
  { algorithm: 'sha256', base64Length: 44 },
] as const;

export type Integrity = {
  algorithm: (typeof ACCEPTED)[number]['algorithm'];
  /** The expected base64 digests of that algorithm (any one matching is a match). */
  digests: string[];
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The integrity to check a tarball against, from its packument `dist`; a RunFailed sentence (naming
 * `what`) when there is none this runner accepts.
 */
export function parseIntegrity(dist: { integrity?: unknown; shasum?: unknown }, what: string): Integrity {
  const raw = typeof dist.integrity === 'string' ? dist.integrity : '';
  const entries = raw
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const [hashPart] = token.split('?', 1);
      const dash = hashPart!.indexOf('-');
      return dash > 0
        ? { algorithm: hashPart!.slice(0, dash).toLowerCase(), digest: hashPart!.slice(dash + 1) }
        : { algorithm: hashPart!.toLowerCase(), digest: '' };
    });
  for (const { algorithm, base64Length } of ACCEPTED) {
    const digests = entries
      .filter((e) => e.algorithm === algorithm && e.digest.length === base64Length && BASE64.test(e.digest))
      .map((e) => e.digest);
    if (digests.length > 0) return { algorithm, digests };
  }
  if (entries.length > 0) {
    const named = [...new Set(entries.map((e) => e.algorithm))].join(', ').slice(0, 80);
    throw new RunFailed(
      `the registry's integrity for ${what} has no well-formed sha512, sha384 or sha256 entry (it lists ${named}), so the download cannot be checked; nothing was installed`,
    );
  }
  throw new RunFailed(
    typeof dist.shasum === 'string' && dist.shasum
      ? `the registry gives no sha256+ integrity for ${what}, only a sha1 shasum, which is too weak to trust a server build with; nothing was installed`
      : `the registry gives no integrity for ${what}, so the download cannot be checked; nothing was installed`,
  );
}

/** A running hash for `integrity`, and whether what it saw matches. */
export function integrityChecker(integrity: Integrity): { hash: Hash; matches: () => boolean } {
  const hash = createHash(integrity.algorithm);
  return { hash, matches: () => integrity.digests.includes(hash.digest('base64')) };
}

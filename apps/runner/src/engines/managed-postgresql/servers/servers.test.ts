import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTunelab } from '../../../test-support/cli.ts';
import { TEST_SERVERS_DIR } from '../../../test-support/servers.ts';
import { asServerUser } from '../cluster/process.ts';
import {
  newestOfMajor,
  newestOfRelease,
  parseServer,
  platformPackage,
  releaseOf,
  releasesOfMajor,
} from './registry.ts';

const temps: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'tl_servers_'));
  temps.push(d);
  return d;
};
afterAll(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

/** Listens on 127.0.0.1 at a port the system picks; resolves to that port. */
async function listenLocal(server: {
  listen(port: number, host: string, cb: () => void): unknown;
  address(): unknown;
}) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  return typeof a === 'object' && a !== null && 'port' in a ? Number(a.port) : 0;
}

/** A TCP port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 1));
    });
  });

describe('newestOfMajor', () => {
  it('picks the newest -beta.N build of a major, never another major', () => {
    const versions = ['17.9.0-beta.17', '17.10.0-beta.3', '17.10.0-beta.17', '17.2.0', '18.1.0-beta.17', '7.1.0'];
    expect(newestOfMajor(versions, 17)).toBe('17.10.0-beta.17');
    expect(newestOfMajor(versions, 18)).toBe('18.1.0-beta.17');
    expect(newestOfMajor(versions, 16)).toBeNull();
  });
});

describe('releases', () => {
  const versions = [
    '17.4.0-beta.15',
    '17.4.0-beta.3',
    '16.1.1-beta.11',
    '16.1.1-beta.9',
    '14.3.0-alpha.21',
    '14.3.0-beta.6',
  ];
  it('a release is the first two parts of a package version; its newest build is picked, beta over alpha', () => {
    expect(releaseOf('17.10.0-beta.17')).toBe('17.10');
    expect(releaseOf('16.1.1-beta.11')).toBe('16.1');
    expect(releaseOf('latest')).toBeNull();
    expect(newestOfRelease(versions, '17.4')).toBe('17.4.0-beta.15');
    expect(newestOfRelease(versions, '16.1')).toBe('16.1.1-beta.11');
    expect(newestOfRelease(versions, '14.3')).toBe('14.3.0-beta.6');
    expect(newestOfRelease(versions, '17.1')).toBeNull();
    expect(releasesOfMajor([...versions, '17.10.0-beta.17', '17.2.0-beta.1'], 17)).toEqual([
      { release: '17.2', version: '17.2.0-beta.1' },
      { release: '17.4', version: '17.4.0-beta.15' },
      { release: '17.10', version: '17.10.0-beta.17' },
    ]);
  });
  it('--server takes a major or MAJOR.MINOR of a supported major', () => {
    expect(parseServer('17')).toEqual({ major: 17 });
    expect(parseServer('17.4')).toEqual({ major: 17, release: '17.4' });
    expect(() => parseServer('13.4')).toThrow(/is a release of PostgreSQL 13, not of a major this runner can install/);
    expect(() => parseServer('17.4.1')).toThrow(/neither a PostgreSQL major nor a release/);
    expect(() => parseServer('17.')).toThrow(/neither a PostgreSQL major nor a release/);
  });
});

/** The releases of each major in the registry's metadata, read here without the runner's code. */
async function registryReleases(): Promise<Map<number, Set<string>>> {
  const res = await fetch(`https://registry.npmjs.org/${platformPackage().replace('/', '%2f')}`, {
    headers: { accept: 'application/vnd.npm.install-v1+json' },
  });
  const doc = (await res.json()) as { versions: Record<string, unknown> };
  const out = new Map<number, Set<string>>();
  for (const v of Object.keys(doc.versions)) {
    const m = /^(\d+)\.(\d+)\.\d+(-[a-z]+\.\d+)?$/.exec(v);
    if (!m) continue;
    const major = Number(m[1]);
    out.set(major, (out.get(major) ?? new Set()).add(`${major}.${m[2]}`));
  }
  return out;
}

describe('tunelab servers list --available', () => {
  it("lists the registry's releases of every supported major, the installed ones marked", async () => {
    // 17.0 installed in the shared store (once), hard-linked into a store of this test's own.
    expect((await runTunelab(['servers', 'install', '17.0'], { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR })).code).toBe(0);
    const store = await tempDir();
    execFileSync('cp', ['-al', path.join(TEST_SERVERS_DIR, '17.0'), path.join(store, '17.0')]);
    const env = { TUNELAB_SERVERS_DIR: store };
    const json = await runTunelab(['servers', 'list', '--available', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as {
      packageName: string;
      majors: { major: number; releases: { release: string; version: string; installed: boolean }[] }[];
    };
    expect(listed.packageName).toBe(platformPackage());
    expect(listed.majors.map((m) => m.major)).toEqual([14, 15, 16, 17, 18]);
    const expected = await registryReleases();
    for (const m of listed.majors) {
      expect(new Set(m.releases.map((r) => r.release))).toEqual(expected.get(m.major));
      // Oldest first, by minor.
      const minors = m.releases.map((r) => Number(r.release.split('.')[1]));
      expect(minors).toEqual([...minors].sort((a, b) => a - b));
    }
    const installed = listed.majors.flatMap((m) => m.releases.filter((r) => r.installed).map((r) => r.release));
    expect(installed).toEqual(['17.0']);
    const text = await runTunelab(['servers', 'list', '--available'], env);
    expect(text.code, text.stderr).toBe(0);
    const line17 = text.stdout.split('\n').find((l) => l.startsWith('17 '));
    expect(line17).toMatch(/^17 +17\.0\* 17\.1 /);
    expect(text.stdout).toMatch(/^18 +18\.0 /m);
    // The plain list names the release it is installed under.
    expect((await runTunelab(['servers', 'list'], env)).stdout).toMatch(/^17\.0 +postgres \(PostgreSQL\) 17\.0 /m);
    // And it is removed by that name, the shared store untouched.
    expect((await runTunelab(['servers', 'remove', '17.0'], env)).code).toBe(0);
    expect(await readdir(store)).toEqual([]);
    expect(await readdir(path.join(TEST_SERVERS_DIR, '17.0'))).toContain('tunelab-server.json');
  }, 180_000);

  it('a registry that cannot be reached: one sentence, exit 1', async () => {
    const r = await runTunelab(['servers', 'list', '--available'], {
      TUNELAB_SERVERS_DIR: await tempDir(),
      npm_config_registry: `http://127.0.0.1:${await closedPort()}/`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the npm registry .*; listing the available releases needs it/);
  });
});

describe('tunelab servers', () => {
  it('installs the newest 17 from the registry, lists it, and its postgres runs', async () => {
    const env = { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR };
    const install = await runTunelab(['servers', 'install', '17'], env);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/PostgreSQL\) 17\.\d+/);
    const list = await runTunelab(['servers', 'list', '--json'], env);
    const rows = JSON.parse(list.stdout) as { major: number; version: string; binDir: string }[];
    const row = rows.find((r) => r.major === 17);
    expect(row?.version).toMatch(/^17\.\d+\.\d+-beta\.\d+$/);
    const [f, a] = asServerUser(path.join(row!.binDir, 'postgres'), ['--version']);
    expect(execFileSync(f, a, { cwd: '/' }).toString()).toMatch(/^postgres \(PostgreSQL\) 17\.\d+/);
    // The store holds majors only: no temp directory is left next to them.
    expect((await readdir(TEST_SERVERS_DIR)).filter((n) => n.startsWith('.'))).toEqual([]);
  }, 180_000);

  it('refuses an unknown major (exit 2) naming the installable ones', async () => {
    const dir = await tempDir();
    const r = await runTunelab(['servers', 'install', '13'], { TUNELAB_SERVERS_DIR: path.join(dir, 's') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('choose one of 14, 15, 16, 17, 18');
    expect((await runTunelab(['servers', 'remove', 'x'], { TUNELAB_SERVERS_DIR: dir })).code).toBe(2);
    expect((await runTunelab(['servers', 'remove', '16'], { TUNELAB_SERVERS_DIR: dir })).stderr).toContain(
      'PostgreSQL 16 is not installed',
    );
  });

  it('says so when no registry is reachable (exit 1) and creates nothing', async () => {
    const dir = await tempDir();
    const store = path.join(dir, 's');
    for (const server of ['16', '16.4']) {
      const r = await runTunelab(['servers', 'install', server], {
        TUNELAB_SERVERS_DIR: store,
        npm_config_registry: `http://127.0.0.1:${await closedPort()}/`,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot reach the npm registry');
    }
    await expect(readdir(store)).rejects.toThrow();
  });

  it('refuses a release the registry does not have (exit 2) naming the ones it has, and installs nothing', async () => {
    const store = path.join(await tempDir(), 's');
    const r = await runTunelab(['servers', 'install', '16.99'], { TUNELAB_SERVERS_DIR: store });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /the registry has no build of PostgreSQL 16\.99 for this platform .*its releases of 16 are 16\.1, 16\.2, /,
    );
    await expect(readdir(store)).rejects.toThrow();
    for (const bad of ['13.4', '16.4.1', 'abc']) {
      const b = await runTunelab(['servers', 'install', bad], { TUNELAB_SERVERS_DIR: store });
      expect(b.code, bad).toBe(2);
    }
    expect((await runTunelab(['servers', 'remove', '16.4'], { TUNELAB_SERVERS_DIR: store })).stderr).toContain(
      'PostgreSQL 16.4 is not installed',
    );
  });

  it('leaves nothing half-installed when interrupted mid-download', async () => {
    const store = path.join(await tempDir(), 's');
    let sent = false;
    const r = await runTunelab(['servers', 'install', '16'], { TUNELAB_SERVERS_DIR: store }, (all, child) => {
      if (!sent && all.includes('downloading')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(await readdir(store)).toEqual([]);
  }, 60_000);

  it('removes an installed major', async () => {
    const store = await tempDir();
    const env = { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR };
    expect((await runTunelab(['servers', 'install', '17'], env)).code).toBe(0);
    // A hard-linked copy of the shared install: removing it must not touch the shared one.
    execFileSync('cp', ['-al', path.join(TEST_SERVERS_DIR, '17'), path.join(store, '17')]);
    const r = await runTunelab(['servers', 'remove', '17'], { TUNELAB_SERVERS_DIR: store });
    expect(r.code, r.stderr).toBe(0);
    expect(await readdir(store)).toEqual([]);
    expect((await runTunelab(['servers', 'list'], { TUNELAB_SERVERS_DIR: store })).stdout).toContain(
      'no servers installed',
    );
  }, 180_000);
});

describe("the registry's certificate and proxy: npm's cafile and proxy settings", () => {
  /** A self-signed certificate for 127.0.0.1 (key and cert PEM files in `dir`). */
  const selfSigned = async (dir: string, name: string) => {
    const key = path.join(dir, `${name}.key`);
    const cert = path.join(dir, `${name}.pem`);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        `/CN=${name}`,
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return { key, cert };
  };
  /** A "registry" on 127.0.0.1 whose package has no build of any major: HTTPS with `tls`, else plain HTTP. */
  const registry = async (tls?: { key: string; cert: string }) => {
    const answer = (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ versions: { '7.1.0': { dist: { tarball: 'https://127.0.0.1/none.tgz' } } } }));
    };
    const server = tls
      ? createHttpsServer({ key: await readFile(tls.key), cert: await readFile(tls.cert) }, answer)
      : createHttpServer(answer);
    const port = await listenLocal(server);
    return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/`, close: () => server.close() };
  };

  it('a cafile that signs the registry is used; one that does not is named (exit 1); a missing or non-PEM one is exit 2', async () => {
    const dir = await tempDir();
    const store = path.join(dir, 's');
    const own = await selfSigned(dir, 'registry');
    const other = await selfSigned(dir, 'other-ca');
    const reg = await registry(own);
    try {
      const install = (cafile: string) =>
        runTunelab(['servers', 'install', '16'], {
          TUNELAB_SERVERS_DIR: store,
          TUNELAB_REGISTRY: reg.url,
          npm_config_cafile: cafile,
          NODE_EXTRA_CA_CERTS: '',
        });
      // Trusted through the cafile: the registry answered (it has no build of 16).
      const ok = await install(own.cert);
      expect(ok.code, ok.stderr).toBe(1);
      expect(ok.stderr).toContain('the registry has no build of PostgreSQL 16');
      // A CA that does not sign the registry's certificate.
      const bad = await install(other.cert);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`cannot reach the npm registry`);
      expect(bad.stderr).toContain(`from TUNELAB_REGISTRY`);
      expect(bad.stderr).toMatch(/its certificate is not trusted: .*self[- ]signed/);
      expect(bad.stderr).toContain(`the trusted certificate authorities come from npm_config_cafile (${other.cert})`);
      // A file that is not there, or not a certificate.
      const missing = await install(path.join(dir, 'nope.pem'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `npm_config_cafile names the CA file ${path.join(dir, 'nope.pem')}, which cannot be read (ENOENT)`,
      );
      const notPem = path.join(dir, 'not.pem');
      await writeFile(notPem, 'hello\n');
      const garbage = await install(notPem);
      expect(garbage.code).toBe(2);
      expect(garbage.stderr).toContain(`which holds no PEM certificate`);
      await expect(readdir(store)).rejects.toThrow();
    } finally {
      reg.close();
    }
  }, 120_000);

  /**
   * A forward proxy on 127.0.0.1, as npm users run them: CONNECT tunnels for https URLs, absolute
   * request URIs for http ones. It records what it was asked for.
   */
  const forwardProxy = async () => {
    const asked: string[] = [];
    const server = createHttpServer((req, res) => {
      asked.push(`GET ${req.url}`);
      const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      asked.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host ?? '', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const port = await listenLocal(server);
    return {
      url: `http://127.0.0.1:${port}`,
      asked,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  };

  it('goes through the proxy npm would use (https-proxy, proxy, HTTPS_PROXY), not for a noproxy host; names it when it fails', async () => {
    const dir = await tempDir();
    const store = path.join(dir, 's');
    const own = await selfSigned(dir, 'registry');
    const reg = await registry(own);
    const proxy = await forwardProxy();
    const regHost = new URL(reg.url).host;
    try {
      const install = (env: Record<string, string>) =>
        runTunelab(['servers', 'install', '16'], {
          TUNELAB_SERVERS_DIR: store,
          TUNELAB_REGISTRY: reg.url,
          npm_config_cafile: own.cert,
          NODE_EXTRA_CA_CERTS: '',
          ...env,
        });
      // https-proxy: a CONNECT tunnel to the registry, the registry's certificate still checked against the cafile.
      const through = await install({ npm_config_https_proxy: proxy.url });
      expect(through.stderr).toContain('the registry has no build of PostgreSQL 16');
      expect(through.code).toBe(1);
      expect(proxy.asked).toEqual([`CONNECT ${regHost}`]);
      // Through the tunnel the registry's certificate is still checked: a CA that does not sign it is refused.
      const other = await selfSigned(dir, 'other-ca');
      const untrusted = await install({ npm_config_https_proxy: proxy.url, npm_config_cafile: other.cert });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(
        /through the proxy \S+ \(from npm_config_https_proxy\): its certificate is not trusted/,
      );
      proxy.asked.length = 1;
      // HTTPS_PROXY as npm reads it, but the registry's host is in NO_PROXY: straight to the registry.
      const bypassed = await install({ HTTPS_PROXY: proxy.url, NO_PROXY: 'example.org, 127.0.0.1' });
      expect(bypassed.stderr).toContain('the registry has no build of PostgreSQL 16');
      expect(proxy.asked).toHaveLength(1);
      // A proxy nothing listens on: named, with the setting it came from (exit 1).
      const dead = `http://127.0.0.1:${await closedPort()}`;
      const down = await install({ npm_config_https_proxy: dead });
      expect(down.code).toBe(1);
      expect(down.stderr).toContain(`cannot reach the npm registry`);
      expect(down.stderr).toContain(`through the proxy ${dead} (from npm_config_https_proxy)`);
      // A password in the proxy's URL is never printed.
      // (with an @ in it, which the URL parser takes as part of the password)
      const secret = `http://tunelab:s3c@ret@127.0.0.1:${await closedPort()}`;
      const secretDown = await install({ npm_config_https_proxy: secret });
      expect(secretDown.code).toBe(1);
      expect(secretDown.stderr).toContain('through the proxy http://***@127.0.0.1:');
      expect(secretDown.stderr).not.toMatch(/s3c|ret@/);
      // npm's own https-proxy (here from a user .npmrc) outranks HTTPS_PROXY, as in npm.
      const npmrc = path.join(dir, 'npmrc');
      await writeFile(npmrc, `https-proxy=${proxy.url}\n`);
      proxy.asked.length = 0;
      const fromNpmrc = await install({ npm_config_userconfig: npmrc, HTTPS_PROXY: dead });
      expect(fromNpmrc.stderr).toContain('the registry has no build of PostgreSQL 16');
      // Through npm's proxy (a retried request may open a second tunnel), never straight to the registry.
      expect(proxy.asked.length).toBeGreaterThan(0);
      expect(new Set(proxy.asked)).toEqual(new Set([`CONNECT ${regHost}`]));
      // A setting that is not a proxy URL: exit 2, naming it.
      const bad = await install({ npm_config_https_proxy: 'proxy.example:8080' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        'npm_config_https_proxy is "proxy.example:8080", not an http:// or https:// proxy URL',
      );
      await expect(readdir(store)).rejects.toThrow();
    } finally {
      proxy.close();
      reg.close();
    }
  }, 120_000);

  it("an http registry goes through npm's proxy setting as an absolute request URI", async () => {
    const dir = await tempDir();
    const plain = await registry();
    const reg = plain.url;
    const proxy = await forwardProxy();
    try {
      const r = await runTunelab(['servers', 'install', '16'], {
        TUNELAB_SERVERS_DIR: path.join(dir, 's'),
        TUNELAB_REGISTRY: reg,
        npm_config_proxy: proxy.url,
      });
      expect(r.stderr).toContain('the registry has no build of PostgreSQL 16');
      expect(r.code).toBe(1);
      expect(proxy.asked).toEqual([`GET ${reg}${platformPackage().replace('/', '%2f')}`]);
    } finally {
      proxy.close();
      plain.close();
    }
  }, 60_000);

  it('a registry setting that is not an http(s) URL is exit 2', async () => {
    const dir = await tempDir();
    const r = await runTunelab(['servers', 'install', '16'], {
      TUNELAB_SERVERS_DIR: path.join(dir, 's'),
      TUNELAB_REGISTRY: 'registry.example',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('TUNELAB_REGISTRY is "registry.example", not an http:// or https:// URL');
  });
});

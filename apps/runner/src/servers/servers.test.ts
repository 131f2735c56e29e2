import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_SERVERS_DIR } from '../test-support/servers.ts';
import { asServerUser } from '../drivers/managed-cluster/process.ts';
import { newestOfMajor } from './registry.ts';

const temps: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'tl_servers_'));
  temps.push(d);
  return d;
};
afterAll(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

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
    const r = await runTunelab(['servers', 'install', '16'], {
      TUNELAB_SERVERS_DIR: store,
      npm_config_registry: `http://127.0.0.1:${await closedPort()}/`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach the npm registry');
    await expect(readdir(store)).rejects.toThrow();
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

describe("the registry's certificate: npm's cafile", () => {
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
  /** An HTTPS "registry" on 127.0.0.1 whose package has no build of any major. */
  const registry = async (tls: { key: string; cert: string }) => {
    const server = createHttpsServer({ key: await readFile(tls.key), cert: await readFile(tls.cert) }, (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ versions: { '7.1.0': { dist: { tarball: 'https://127.0.0.1/none.tgz' } } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const a = server.address();
    return { url: `https://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/`, close: () => server.close() };
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

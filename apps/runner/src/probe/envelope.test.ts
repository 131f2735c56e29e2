/**
 * Envelopes on real processes and the real disk: a reader inside a 50-IOPS envelope reads at
 * about 50 IOPS where the same read outside runs far faster, a reader inside a 64 MB memory
 * envelope never holds more than 64 MB (its page cache included), and bad `--envelope` text is a
 * sentence naming the part. The cgroup tests need root and cgroups (CI runs as root).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvelope, describeEnvelope, EnvelopeSyntaxError, parseEnvelope } from './envelope.ts';

describe('--envelope text', () => {
  it('reads sizes, operations and MB/s', () => {
    expect(parseEnvelope('memory=2GB,read-iops=150,write-mbps=40')).toEqual({
      memoryBytes: 2 * 1024 ** 3,
      readIops: 150,
      writeBps: 40_000_000,
    });
    expect(parseEnvelope(' memory = 512MB , write-iops=80, read-mbps=2.5')).toEqual({
      memoryBytes: 512 * 1024 ** 2,
      writeIops: 80,
      readBps: 2_500_000,
    });
    expect(describeEnvelope(parseEnvelope('memory=2GB,read-iops=150,write-mbps=40'))).toBe(
      'memory 2GB, reads 150 IOPS, writes 40 MB/s',
    );
  });

  it.each([
    ['', /is empty/],
    ['memory=2', /memory=2: expected a size of at least 64MB with its unit/],
    ['memory=1MB', /at least 64MB/],
    ['read-iops=0', /read-iops=0: expected a positive number/],
    ['read-iops=-5', /expected a positive number/],
    ['read-iops=1e3', /expected a positive number/],
    ['cpus=2', /unknown limit "cpus"; expected memory=SIZE/],
    ['read-iops=5,read-iops=6', /read-iops is given twice/],
    ['read-iops', /read-iops=: expected a positive number/],
  ])('refuses %j with a sentence', (text, message) => {
    expect(() => parseEnvelope(text)).toThrow(EnvelopeSyntaxError);
    expect(() => parseEnvelope(text)).toThrow(message);
  });
});

const root = process.getuid?.() === 0;
const v1 = existsSync('/sys/fs/cgroup/memory/cgroup.procs') && existsSync('/sys/fs/cgroup/blkio/cgroup.procs');

/** The block device of a directory, from findmnt (a plain disk or partition; null otherwise). */
function deviceOf(dir: string): string | null {
  const r = spawnSync('findmnt', ['-n', '-o', 'SOURCE', '-T', dir], { encoding: 'utf8' });
  const dev = r.stdout.trim();
  return /^\/dev\/[a-z0-9]+$/.test(dev) ? dev : null;
}

/** Runs argv (first element the program) and fails the test when it fails. */
function run(argv: readonly string[], options: { maxBuffer?: number } = {}) {
  const r = spawnSync(argv[0]!, argv.slice(1), options);
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${String(r.stderr)}`);
  return r;
}

/** Reads `count` 4 kB blocks of `file` with O_DIRECT through `wrap`; blocks per second. */
function directReads(wrap: (argv: string[]) => string[], file: string, count: number): number {
  const started = process.hrtime.bigint();
  run(wrap(['dd', `if=${file}`, 'of=/dev/null', 'bs=4k', `count=${count}`, 'iflag=direct']));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

// Skipped only without root or without cgroup v1 memory/blkio (writing cgroups needs both); CI runs
// as root on cgroup v1, so it runs there.
describe.skipIf(!root || !v1)('an envelope on a real process (root and cgroup v1; runs in CI, which is root)', () => {
  let dir: string;
  let file: string;
  let device: string | null;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tunelab-envelope-'));
    file = path.join(dir, 'data');
    // Written with O_DIRECT: none of it sits in the page cache, charged to this process's cgroup.
    const dd = spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', 'count=128', 'oflag=direct'], {
      encoding: 'utf8',
    });
    if (dd.status !== 0) throw new Error(`dd failed: ${dd.stderr}`);
    device = deviceOf(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('limits reads to its IOPS: a reader inside runs at about the limit, the same reader outside far faster', async () => {
    if (!device) return expect.fail(`no block device found for ${dir}`);
    const outside = directReads((a) => a, file, 400);
    const envelope = await createEnvelope(parseEnvelope('read-iops=50'), { device });
    try {
      expect(envelope.mechanism).toBe('cgroup-v1');
      expect(envelope.description).toBe('reads 50 IOPS with cgroup v1');
      const inside = directReads((a) => envelope.wrap(a), file, 100);
      // 100 reads at 50 IOPS take about 2 s; the throttle admits a small burst.
      expect(inside).toBeLessThan(75);
      expect(inside).toBeLessThan(outside / 2);
    } finally {
      await envelope.remove();
    }
    for (const d of envelope.dirs) expect(existsSync(d)).toBe(false);
  });

  it('charges the page cache to its memory limit', async () => {
    const envelope = await createEnvelope(parseEnvelope('memory=64MB'), { device: null });
    try {
      const memoryDir = envelope.dirs.find((d) => d.includes('/memory/'))!;
      // Pages are charged to the cgroup that first reads them: drop any cached page of the file,
      // then read the 128 MB file through the page cache inside the envelope.
      run(['dd', `if=${file}`, 'iflag=nocache', 'count=0']);
      const r = run(envelope.wrap(['cat', file]), { maxBuffer: 256 * 1024 * 1024 });
      expect(r.stdout.length).toBe(128 * 1024 * 1024);
      const max = Number(readFileSync(path.join(memoryDir, 'memory.max_usage_in_bytes'), 'utf8'));
      expect(max).toBeLessThanOrEqual(64 * 1024 * 1024);
      expect(max).toBeGreaterThan(32 * 1024 * 1024);
    } finally {
      await envelope.remove();
    }
  });

  it('moves a running process in and lists it', async () => {
    const envelope = await createEnvelope(parseEnvelope('memory=256MB'), { device: null });
    const sleeper = spawn('sleep', ['30']);
    try {
      await envelope.enter(sleeper.pid!);
      expect(await envelope.pids()).toContain(sleeper.pid);
      expect(readFileSync(`/proc/${sleeper.pid}/cgroup`, 'utf8')).toMatch(/memory:\/tunelab-envelope-\d+-[0-9a-f]{8}/);
    } finally {
      sleeper.kill();
      await envelope.remove();
    }
  });
});

// Skipped only without root or cgroup v1, as above; runs in CI.
describe.skipIf(!root || !v1)('a managed PostgreSQL server inside an envelope (root and cgroup v1)', () => {
  it('runs the postmaster and every backend it forks inside the envelope, and leaves nothing behind', async () => {
    const { createManagedCluster, findServerBinaries } = await import('../engines/managed-postgresql/cluster/index.ts');
    const { default: pg } = await import('pg');
    const parent = mkdtempSync(path.join(tmpdir(), 'tunelab-envelope-pg-'));
    spawnSync('chmod', ['755', parent]);
    const envelope = await createEnvelope(parseEnvelope('memory=256MB'), { device: null });
    const cluster = await createManagedCluster({
      binaries: await findServerBinaries({ minMajor: 14 }),
      parentDir: parent,
      envelope,
    });
    try {
      await cluster.start();
      const client = new pg.Client(cluster.clientConfig());
      await client.connect();
      const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const inside = await envelope.pids();
      expect(readFileSync(`/proc/${backend}/cgroup`, 'utf8')).toMatch(/memory:\/tunelab-envelope-/);
      await client.end();
      expect(inside).toContain(backend);
      // The postmaster, its checkpointer, background writer, WAL writer… all inside.
      expect(inside.length).toBeGreaterThanOrEqual(4);
    } finally {
      await cluster.destroy();
      await envelope.remove();
      rmSync(parent, { recursive: true, force: true });
    }
    for (const d of envelope.dirs) expect(existsSync(d)).toBe(false);
  });
});

// Skipped without root or cgroup v1. With fio every figure is measured inside the envelope; the
// runner's own probe (no fio: a fresh machine) runs its random reads there, in a child process.
const hasFio = spawnSync('fio', ['--version']).status === 0;
// Skipped only without root or cgroup v1 (making an envelope needs both); CI runs as root on v1, so it runs there.
describe.skipIf(!root || !v1)('the probe inside an envelope measures the envelope (root, cgroup v1)', () => {
  it.each<['node' | 'fio']>([['node'], ...(hasFio ? [['fio'] as ['fio']] : [])])(
    'a 150-IOPS read throttle probes as HDD-like with %s, the same disk outside as faster',
    async (tool): Promise<void> => {
      const { measureHardware } = await import('./measure.ts');
      const { storageTierOf } = await import('@tunelab/contracts');
      const dir = mkdtempSync(path.join(tmpdir(), 'tunelab-envelope-probe-'));
      const device = deviceOf(dir);
      if (!device) expect.fail(`no block device found for ${dir}`);
      const envelope = await createEnvelope(parseEnvelope('read-iops=150'), { device });
      try {
        const inside = await measureHardware({
          dir,
          tool,
          wrap: (argv) => envelope.wrap(argv),
          fileBytes: 16 * 1024 * 1024,
        });
        const outside = await measureHardware({ dir, tool, fileBytes: 16 * 1024 * 1024 });
        // Queue depth 1 and 16 inside the throttle: about 150 reads/s either way.
        expect(inside.readIopsQd1).toBeLessThan(225);
        expect(inside.readIopsQd16).toBeLessThan(225);
        expect(storageTierOf(inside)).toBe('hdd-like');
        expect(outside.readIopsQd16!).toBeGreaterThan(2 * inside.readIopsQd16!);
        if (tool === 'node') expect(inside.notes.join(' ')).toMatch(/inside the envelope: the random reads only/);
      } finally {
        await envelope.remove();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

// Skipped only without root or cgroup v1 (making an envelope needs both); CI runs as root on v1, so it runs there.
describe.skipIf(!root || !v1)('envelopes left by a runner that was killed outright (root and cgroup v1)', () => {
  it('are swept by the next envelope: their processes go back to the root cgroup and the cgroups go', async () => {
    const { sweepOrphanEnvelopes } = await import('./envelope.ts');
    // A pid that is surely gone: a process that has exited.
    const gone = spawnSync('true').pid;
    const dir = `/sys/fs/cgroup/memory/tunelab-envelope-${gone}-deadbeef`;
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(dir);
    const sleeper = spawn('sleep', ['30']);
    try {
      writeFileSync(path.join(dir, 'cgroup.procs'), String(sleeper.pid));
      const swept = await sweepOrphanEnvelopes();
      expect(swept).toContain(dir);
      expect(existsSync(dir)).toBe(false);
      expect(readFileSync(`/proc/${sleeper.pid}/cgroup`, 'utf8')).toMatch(/:memory:\/\n/);
      // A live runner's envelope is left alone.
      const mine = await createEnvelope(parseEnvelope('memory=256MB'), { device: null });
      try {
        await sweepOrphanEnvelopes();
        for (const d of mine.dirs) expect(existsSync(d)).toBe(true);
      } finally {
        await mine.remove();
      }
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});

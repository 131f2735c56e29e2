import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decideTier, readHistory, stableTier, tierOfProbe, type FilesystemHistory } from './tier-history.ts';

// Never the checkout's or the user's ~/.tunelab: every history lives in this temp dir.
const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-tier-history-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

let clock = 0;
/** A probe's figures: NVMe-like by default (12k reads/s at QD1, 800 MB/s of writes), unloaded. */
const probe = (over: Partial<Parameters<typeof decideTier>[1]> = {}): Parameters<typeof decideTier>[1] => ({
  measuredAt: new Date(Date.UTC(2026, 0, 1, 0, clock++)).toISOString(),
  readIopsQd1: 12_000,
  readIopsQd16: 25_000,
  seqWriteMBps: 800,
  fsyncP50Us: 130,
  loadAverage1m: 0.2,
  logicalCpus: 2,
  windows: { perFigure: 5, retried: [], cpuBusy: 0.1 },
  ...over,
});
const hddUnderLoad = probe({
  readIopsQd1: 300,
  readIopsQd16: 900,
  seqWriteMBps: 40,
  loadAverage1m: 5,
  windows: { perFigure: 5, retried: ['readQd1#1'], cpuBusy: 0.98 },
});
/** Feeds probes in order, as successive runs of `tunelab probe` would. */
function feed(probes: Parameters<typeof decideTier>[1][], start?: FilesystemHistory) {
  let stored = start;
  return probes.map((p) => {
    const d = decideTier(stored, p, '/data');
    stored = d.next;
    return d;
  });
}

describe('decideTier', () => {
  it('the first probe sets the tier; later ones within the margin keep it and say so', () => {
    const [first, ssd] = feed([probe(), probe({ seqWriteMBps: 500, readIopsQd16: 25_000 })]);
    expect(first).toMatchObject({ tier: 'nvme-like', measured: 'nvme-like' });
    expect(first!.reason).toMatch(/^first probe of this filesystem: NVMe-like$/);
    expect(ssd).toMatchObject({ tier: 'nvme-like', measured: 'ssd-like' });
    expect(ssd!.reason).toMatch(
      /^kept NVMe-like \(since .*, 1 earlier probe\): this probe measured SSD-like, within 2× of the threshold; 1 of 3 consecutive probes needed/,
    );
  });

  it('a busy moment never moves the tier down, however slow it measures, nor do five of them', () => {
    const ds = feed([probe(), hddUnderLoad, hddUnderLoad, hddUnderLoad, hddUnderLoad, hddUnderLoad]);
    expect(ds.map((d) => d.tier)).toEqual(Array(6).fill('nvme-like'));
    expect(ds[1]!.measured).toBe('hdd-like');
    expect(ds[1]!.reason).toMatch(
      /measured HDD-like under load .*: a slower tier needs 3 consecutive probes without load/,
    );
  });

  it('moves at once when clearly past the threshold without load, or after 3 agreeing probes', () => {
    const unloadedHdd = probe({ readIopsQd1: 150, readIopsQd16: 600, seqWriteMBps: 60 });
    const [, moved] = feed([probe(), unloadedHdd]);
    expect(moved).toMatchObject({ tier: 'hdd-like' });
    expect(moved!.reason).toMatch(/^moved from NVMe-like to HDD-like: 2× past the threshold$/);
    // SSD-like by a little (500 MB/s, under SATA's 600): only the third such probe in a row moves it.
    const ssd = probe({ seqWriteMBps: 500 });
    const ds = feed([probe(), ssd, ssd, ssd]);
    expect(ds.map((d) => d.tier)).toEqual(['nvme-like', 'nvme-like', 'nvme-like', 'ssd-like']);
    expect(ds[3]!.reason).toMatch(/3 consecutive probes measured it/);
  });

  it('a first probe under load is corrected upwards by the next quiet one', () => {
    const ds = feed([hddUnderLoad, probe()]);
    expect(ds.map((d) => d.tier)).toEqual(['hdd-like', 'nvme-like']);
    expect(ds[1]!.reason).toMatch(/2× past the threshold/);
  });

  it('a probe without random reads keeps the stored tier; the history keeps the last 10 probes', () => {
    const ds = feed([probe(), ...Array.from({ length: 12 }, () => probe({ readIopsQd1: null, readIopsQd16: null }))]);
    expect(ds.at(-1)).toMatchObject({ tier: 'nvme-like', measured: null });
    expect(ds.at(-1)!.next.probes).toHaveLength(10);
  });
});

describe('the history file', () => {
  it('is written and read back: the second probe of the same filesystem sees the first', () => {
    const file = path.join(tmp, 'a', 'history.json');
    const warnings: string[] = [];
    expect(stableTier(file, tmp, probe(), warnings).tier).toBe('nvme-like');
    expect(stableTier(file, tmp, hddUnderLoad, warnings).tier).toBe('nvme-like');
    expect(warnings).toEqual([]);
    const { history } = readHistory(file);
    expect(Object.values(history.filesystems)[0]!.probes.map((p) => p.tier)).toEqual(['nvme-like', 'hdd-like']);
  });

  it.each([
    ['not JSON', '{"version": 1, "filesys'],
    ['JSON of another shape', '{"version": 2, "filesystems": []}'],
    ['an empty file', ''],
  ])('%s: a clear warning, ignored and replaced, never a crash', async (_name, text) => {
    const file = path.join(tmp, `corrupt-${clock}.json`);
    await writeFile(file, text);
    const warnings: string[] = [];
    const d = stableTier(file, tmp, probe(), warnings);
    expect(d.tier).toBe('nvme-like');
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^the probe history ${file} does not parse \\(.*\\): ignored, and replaced by this probe's$`),
      ),
    ]);
    expect(readHistory(file)).toMatchObject({ warning: null });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 1 });
  });

  it('an unwritable history: a warning, the tier still decided', async () => {
    const notADir = path.join(tmp, 'a-file');
    await writeFile(notADir, 'x');
    const warnings: string[] = [];
    const d = stableTier(path.join(notADir, 'history.json'), tmp, probe(), warnings);
    expect(d.tier).toBe('nvme-like');
    expect(warnings.join('\n')).toMatch(
      /cannot write the probe history .*a-file\/history.json .*: this probe is not remembered/,
    );
  });

  it('TUNELAB_STORAGE_TIER wins and leaves the history alone', async () => {
    const file = path.join(tmp, 'override.json');
    const r = tierOfProbe(tmp, hddUnderLoad, { probeHistoryFile: file, storageTier: 'ssd-like' }, () => {});
    expect(r).toEqual({
      tier: 'ssd-like',
      reason: 'set by TUNELAB_STORAGE_TIER=ssd-like, not by the figures (the probe history is left alone)',
    });
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
  });
});

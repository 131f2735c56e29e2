import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probeStorageOf } from './hardware.ts';
import { ThrottleUnavailable, throttleWrites } from './io-throttle.ts';

const blkioOf = (pid: number) =>
  readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => /(^|[:,])blkio([:,]|$)/.test(l) || l.startsWith('0::'));
// Throttling needs root and a cgroup hierarchy; CI containers without them get the clear error instead.
const canThrottle =
  process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/sys/fs/cgroup/blkio/cgroup.procs');

describe('write throttle (cgroups)', () => {
  // Runs here (root, cgroup v1 blkio); skipped only where neither exists, as the comment above says.
  it.skipIf(!canThrottle)('moves a process under a write limit and back', async () => {
    const child = spawn('sleep', ['30']);
    try {
      const device = (await probeStorageOf('/tmp')).device!;
      const before = blkioOf(child.pid!);
      const t = await throttleWrites({ pid: child.pid!, device, bytesPerSecond: 5 * 1024 * 1024 });
      expect(t.mechanism).toBe('cgroup-v1-blkio');
      expect(blkioOf(child.pid!)).toMatch(/tunelab-throttle-/);
      expect(t.description).toContain('5242880 B/s');
      await t.remove();
      expect(blkioOf(child.pid!)).toBe(before);
    } finally {
      child.kill();
    }
  });

  it('refuses clearly what it cannot throttle', async () => {
    await expect(
      throttleWrites({ pid: process.pid, device: '/dev/tunelab-no-such-disk', bytesPerSecond: 1e6 }),
    ).rejects.toThrow(process.getuid?.() === 0 ? /cannot find the device numbers/ : /needs root/);
    await expect(throttleWrites({ pid: process.pid, device: '/dev/vda', bytesPerSecond: 0 })).rejects.toBeInstanceOf(
      ThrottleUnavailable,
    );
  });
});

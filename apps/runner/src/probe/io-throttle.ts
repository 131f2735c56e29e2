import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { blockDeviceNumbers, exists, processCgroups } from './sysfs.ts';

/**
 * Throttles the disk writes of a local process (the database server) with cgroups, to make a
 * small fast machine disk-bound. cgroup v1: the process moves into a child of its
 * blkio cgroup with `blkio.throttle.write_bps_device`; v2: `io.max` of its own cgroup (`wbps=`).
 * Needs root. `remove()` puts everything back; v1 throttling covers direct I/O, which InnoDB
 * uses with innodb_flush_method = O_DIRECT (the default on MariaDB ≥ 10.6).
 * https://docs.kernel.org/admin-guide/cgroup-v1/blkio-controller.html
 * https://docs.kernel.org/admin-guide/cgroup-v2.html#io-interface-files
 */
export type WriteThrottle = {
  mechanism: 'cgroup-v1-blkio' | 'cgroup-v2-io.max';
  description: string;
  remove(): Promise<void>;
};

export class ThrottleUnavailable extends Error {}

const V1_ROOT = '/sys/fs/cgroup/blkio';

export async function throttleWrites(opts: {
  pid: number;
  device: string;
  bytesPerSecond: number;
}): Promise<WriteThrottle> {
  const { pid, device } = opts;
  const bps = Math.round(opts.bytesPerSecond);
  if (!(bps > 0)) throw new ThrottleUnavailable('the write limit must be a positive number of bytes per second');
  if (process.getuid?.() !== 0)
    throw new ThrottleUnavailable('throttling writes with cgroups needs root; the runner is not root');
  const devnum = await blockDeviceNumbers(device, false, ThrottleUnavailable);
  const lines = await processCgroups(pid, ThrottleUnavailable);

  const v1 = lines.find((l) => l.controllers.includes('blkio'));
  if (v1 && (await exists(path.join(V1_ROOT, 'cgroup.procs')))) {
    const original = path.join(V1_ROOT, v1.path);
    // The runner's pid in the name: one killed outright leaves it, and the next `tunelab` command
    // (envelope.ts sweepOrphanEnvelopes) moves the server back to `original` and removes it.
    const dir = path.join(original, `tunelab-throttle-${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(dir);
    try {
      await writeFile(path.join(dir, 'blkio.throttle.write_bps_device'), `${devnum} ${bps}`);
      await writeFile(path.join(dir, 'cgroup.procs'), String(pid));
    } catch (e) {
      await rmdir(dir).catch(() => {});
      throw new ThrottleUnavailable(`cgroup v1 blkio throttling failed: ${(e as Error).message}`);
    }
    return {
      mechanism: 'cgroup-v1-blkio',
      description: `writes of pid ${pid} to ${device} (${devnum}) limited to ${bps} B/s with cgroup v1 blkio.throttle.write_bps_device`,
      async remove() {
        await writeFile(path.join(original, 'cgroup.procs'), String(pid)).catch(() => {}); // gone: nothing to move
        await rmdir(dir);
      },
    };
  }

  const v2 = lines.find((l) => l.hierarchy === '0');
  if (v2) {
    const mount = (await exists('/sys/fs/cgroup/cgroup.controllers')) ? '/sys/fs/cgroup' : '/sys/fs/cgroup/unified';
    if (v2.path === '/') throw new ThrottleUnavailable(`pid ${pid} is in the cgroup v2 root, which has no io.max`);
    const ioMax = path.join(mount, v2.path, 'io.max');
    if (!(await exists(ioMax)))
      throw new ThrottleUnavailable(`the io controller is not enabled for ${path.join(mount, v2.path)}`);
    const before = (await readFile(ioMax, 'utf8')).split('\n').find((l) => l.startsWith(`${devnum} `));
    try {
      await writeFile(ioMax, `${devnum} wbps=${bps}`);
    } catch (e) {
      throw new ThrottleUnavailable(`cgroup v2 io.max failed: ${(e as Error).message}`);
    }
    const wbps = /wbps=(\S+)/.exec(before ?? '')?.[1] ?? 'max';
    return {
      mechanism: 'cgroup-v2-io.max',
      description: `writes of cgroup ${v2.path} (pid ${pid}) to ${device} (${devnum}) limited to ${bps} B/s with cgroup v2 io.max`,
      async remove() {
        await writeFile(ioMax, `${devnum} wbps=${wbps}`);
      },
    };
  }
  throw new ThrottleUnavailable(`no blkio (v1) or io (v2) cgroup controller found for pid ${pid}`);
}

/** The server's pid from its pid file (a local MySQL/MariaDB: `SELECT @@pid_file`). */
export async function pidFromFile(pidFile: string): Promise<number> {
  const text = await readFile(pidFile, 'utf8').catch((e: Error) => {
    throw new ThrottleUnavailable(`cannot read the server's pid file ${pidFile}: ${e.message}`);
  });
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new ThrottleUnavailable(`pid file ${pidFile} holds no pid`);
  return pid;
}

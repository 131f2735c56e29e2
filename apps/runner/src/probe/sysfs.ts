/** What the probes read of the kernel: whether a file is there, a block device's numbers, a process's cgroups. */
import { access, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

export async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** The error a caller throws when what it needs of the kernel is not there (EnvelopeUnavailable, ThrottleUnavailable). */
type Unavailable = new (message: string) => Error;

/**
 * `major:minor` of a block device such as `/dev/vda` (from sysfs); with `wholeDisk`, of the disk
 * behind a partition (/dev/vda1 → vda's): throttles apply to the disk's request queue. Throws
 * `Unavailable` when sysfs does not list it.
 */
export async function blockDeviceNumbers(
  device: string,
  wholeDisk: boolean,
  unavailable: Unavailable,
): Promise<string> {
  let name = path.basename(device);
  // A partition's sysfs directory sits inside its disk's (/sys/devices/…/vda/vda1).
  if (wholeDisk && (await exists(`/sys/class/block/${name}/partition`)))
    name = path.basename(path.dirname(await realpath(`/sys/class/block/${name}`)));
  try {
    return (await readFile(`/sys/class/block/${name}/dev`, 'utf8')).trim();
  } catch {
    throw new unavailable(`cannot find the device numbers of ${device} in /sys/class/block`);
  }
}

/** A process's cgroups (/proc/PID/cgroup): v1 lines name their controllers, v2's is hierarchy 0. */
export type CgroupMembership = { hierarchy: string; controllers: string[]; path: string }[];

/** The cgroups of process `pid`; throws `Unavailable` when /proc does not show it. */
export async function processCgroups(pid: number, unavailable: Unavailable): Promise<CgroupMembership> {
  const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => {
    throw new unavailable(`process ${pid} is not visible in /proc (not on this machine, or gone)`);
  });
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [hierarchy = '', controllers = '', p = '/'] = line.split(':');
      return { hierarchy, controllers: controllers.split(',').filter(Boolean), path: p };
    });
}

/** What the probes read of the kernel's block devices and cgroups: whether a file is there, a device's numbers. */
import { access, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

export async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/**
 * `major:minor` of a block device such as `/dev/vda` (from sysfs); with `wholeDisk`, of the disk
 * behind a partition (/dev/vda1 → vda's): throttles apply to the disk's request queue. Null when
 * sysfs does not list it.
 */
export async function blockDeviceNumbers(device: string, wholeDisk: boolean): Promise<string | null> {
  let name = path.basename(device);
  // A partition's sysfs directory sits inside its disk's (/sys/devices/…/vda/vda1).
  if (wholeDisk && (await exists(`/sys/class/block/${name}/partition`)))
    name = path.basename(path.dirname(await realpath(`/sys/class/block/${name}`)));
  try {
    return (await readFile(`/sys/class/block/${name}/dev`, 'utf8')).trim();
  } catch {
    return null;
  }
}

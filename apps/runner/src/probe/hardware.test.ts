import { describe, expect, it } from 'vitest';
import { HardwareSpec } from '@tunelab/contracts';
import { isLocalPostgresTarget } from '../engines/postgresql/driver.ts';
import { classifyDisk, probeHardware, probeStorageOf } from './hardware.ts';

describe('hardware probe', () => {
  it('reports a valid HardwareSpec; storage unknown (with a warning) when no data directory is known', async () => {
    const { spec, warnings } = await probeHardware({ dataDirectory: null });
    expect(HardwareSpec.safeParse(spec).success).toBe(true);
    expect(spec.storage.kind).toBe('unknown');
    expect(warnings.join('\n')).toMatch(/--storage/);
  });

  it('takes --storage for a remote target', async () => {
    const { spec, warnings } = await probeHardware({ dataDirectory: null, storageOverride: 'nvme' });
    expect(spec.storage.kind).toBe('nvme');
    expect(warnings).toEqual([]);
  });

  it('finds the device of a directory, and falls back for one it cannot resolve', async () => {
    const root = await probeStorageOf('/');
    expect(root.device).not.toBeNull();
    const missing = await probeStorageOf('/no/such/dir/for/tunelab');
    expect(missing.kind).toMatch(/^(ssd|hdd|nvme|unknown)$/); // resolved against its mount point, never a throw
  });

  it.each([
    ['postgres://postgres@127.0.0.1:5432/postgres', true],
    ['postgres://postgres@localhost/postgres', true],
    ['postgres://postgres@[::1]:5432/postgres', true],
    ['postgresql:///postgres?host=/var/run/postgresql', true],
    ['postgres://db.example.com:5432/postgres', false],
    ['not a url', false],
  ])('isLocal(%s) = %s', (target, local) => {
    expect(isLocalPostgresTarget(target)).toBe(local);
  });

  it('classes a virtual disk as unknown whatever its rotational flag says; NVMe and real disks as before', () => {
    const base = { protocol: '', layoutType: null };
    expect(classifyDisk({ ...base, name: 'sda', physical: 'HDD', model: 'QEMU HARDDISK' })).toBe('unknown');
    expect(classifyDisk({ ...base, name: 'vda', physical: 'HDD', model: null })).toBe('unknown');
    expect(classifyDisk({ ...base, name: 'sdb', physical: 'SSD', model: 'VBOX HARDDISK' })).toBe('unknown');
    expect(classifyDisk({ ...base, name: 'sda', physical: 'HDD', model: 'ST4000DM004-2CV104' })).toBe('hdd');
    expect(classifyDisk({ ...base, name: 'sda', physical: 'SSD', model: 'Samsung SSD 870' })).toBe('ssd');
    expect(classifyDisk({ ...base, name: 'nvme0n1', physical: 'SSD', model: 'Amazon Elastic Block Store' })).toBe(
      'nvme',
    );
  });
});

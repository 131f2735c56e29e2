import { readFile } from 'node:fs/promises';

/** All CPUs' time in jiffies by kind, from the `cpu` line of /proc/stat (guest is included in user). */
export type CpuJiffies = {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
};

/** All CPUs' jiffies now (https://docs.kernel.org/filesystems/proc.html, 1.8); null without a `cpu` line. Throws off Linux. */
export async function readCpuJiffies(): Promise<CpuJiffies | null> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { user, nice, system, idle, iowait, irq, softirq, steal };
}

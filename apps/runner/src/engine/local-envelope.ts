/**
 * `--envelope` around a server of the user's ("where the runner may, the local
 * MariaDB's server process"): a local MySQL/MariaDB server is one process, so moving it into the
 * envelope's cgroup moves every thread it has; it is moved back where it was when the run ends.
 * I/O limits only (plan.ts refuses a memory limit here: memory already charged elsewhere stays
 * there, and a limit below what a running server holds could make the kernel kill it).
 *
 * The move is recorded in the ledger before it is made (host-changes.ts: the process's original
 * cgroups, then the envelope's directories), so a runner killed outright leaves nothing the next
 * `tunelab` command does not put back; the record's lease is renewed while the run lives.
 */
import { EnvelopeUnavailable, UsageError } from '../errors.ts';
import { cgroupsOf, createEnvelope, moveBack, type Envelope } from '../probe/envelope.ts';
import { pidFromFile } from '../probe/io-throttle.ts';
import { probeStorageOf } from '../probe/hardware.ts';
import { redactTarget, type Connection } from './connect.ts';
import { recordHostChange, type HostChange } from './host-changes.ts';

/** Where the move is recorded: the ledger directory, the run, the lease (host-changes.ts). */
export type HostRecordOptions = { ledgerDir: string; runId: string; leaseMs?: number };

export async function enterLocalEnvelope(
  conn: Connection,
  envelope: Envelope,
  recordIn?: HostRecordOptions,
): Promise<void> {
  const { admin, handle } = conn;
  if (!admin.pidFile)
    throw new UsageError(
      '--envelope on a server of yours works for a local MySQL/MariaDB server; give --server MAJOR for a PostgreSQL server the runner starts inside the envelope',
    );
  if (!handle.driver.isLocal(handle.url))
    throw new EnvelopeUnavailable('--envelope needs the server on this machine: the target is not local');
  const [pidFile, dataDirectory] = await Promise.all([admin.pidFile(), admin.dataDirectory()]);
  if (!pidFile || !dataDirectory)
    throw new EnvelopeUnavailable('the server does not tell its pid file and data directory (@@pid_file, @@datadir)');
  const pid = await pidFromFile(pidFile).catch((e: Error) => {
    throw new EnvelopeUnavailable(e.message);
  });
  const device = (await probeStorageOf(dataDirectory)).device;
  const before = await cgroupsOf(pid);
  let change: HostChange | null = null;
  if (recordIn)
    change = await recordHostChange(recordIn.ledgerDir, {
      runId: recordIn.runId,
      what: `the server process ${pid} of ${redactTarget(handle.url)}`,
      pid,
      cgroups: before,
      ...(recordIn.leaseMs !== undefined ? { leaseMs: recordIn.leaseMs } : {}),
    }).catch((e: Error) => {
      throw new EnvelopeUnavailable(
        `cannot record in ${recordIn.ledgerDir} where the server's process ${pid} is before moving it into the envelope (${e.message}); nothing was changed`,
      );
    });
  let applied;
  try {
    applied = await createEnvelope(envelope, { device });
    await change?.setDirs(applied.dirs);
  } catch (e) {
    await applied?.remove();
    await change?.done();
    throw e;
  }
  try {
    await applied.enter(pid);
  } catch (e) {
    await moveBack(pid, before, applied);
    await applied.remove();
    await change?.done();
    throw e;
  }
  const close = handle.close.bind(handle);
  handle.envelope = {
    record: {
      ...applied.envelope,
      mechanism: applied.mechanism,
      description:
        `${applied.description}; the server's process ${pid} was moved in for the run and back after it`.slice(0, 500),
    },
    wrap: (argv) => applied.wrap(argv),
  };
  handle.close = async () => {
    try {
      await moveBack(pid, before, applied);
      await applied.remove();
      await change?.done();
    } finally {
      await close();
    }
  };
}

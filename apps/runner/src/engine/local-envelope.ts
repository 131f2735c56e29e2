/**
 * `--envelope` around a server of the user's (issue 29 §2: "where the runner may, the local
 * MariaDB's server process"): a local MySQL/MariaDB server is one process, so moving it into the
 * envelope's cgroup moves every thread it has; it is moved back where it was when the run ends.
 * I/O limits only (plan.ts refuses a memory limit here: memory already charged elsewhere stays
 * there, and a limit below what a running server holds could make the kernel kill it).
 */
import { EnvelopeUnavailable, UsageError } from '../errors.ts';
import { cgroupsOf, createEnvelope, moveBack, type Envelope } from '../probe/envelope.ts';
import { pidFromFile } from '../probe/io-throttle.ts';
import { probeStorageOf } from '../probe/hardware.ts';
import type { Connection } from './connect.ts';

export async function enterLocalEnvelope(conn: Connection, envelope: Envelope): Promise<void> {
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
  const applied = await createEnvelope(envelope, { device });
  try {
    await applied.enter(pid);
  } catch (e) {
    await moveBack(pid, before, applied);
    await applied.remove();
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
    } finally {
      await close();
    }
  };
}

/**
 * The servers directory the tests share between runs, so re-runs do not download the ~23 MB
 * package of a major again (an empty or missing directory works too: the tests install).
 * `TUNELAB_TEST_SERVERS_DIR` overrides; as root the default is outside /root, which the server's
 * OS user cannot read.
 */
import os from 'node:os';
import path from 'node:path';

export const TEST_SERVERS_DIR =
  process.env.TUNELAB_TEST_SERVERS_DIR ??
  (process.getuid?.() === 0
    ? '/var/cache/tunelab/servers-test'
    : path.join(os.homedir(), '.cache', 'tunelab', 'servers-test'));

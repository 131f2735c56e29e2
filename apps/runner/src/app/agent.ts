/**
 * `tunelab agent`: a long-running runner that claims fleet jobs from the API and runs them, one
 * at a time, against its `--target`, or each on a throwaway managed PostgreSQL server of its
 * `--server` major (the same run path as `tunelab run --server`: installed on first use).
 *
 * It announces this machine's hardware, its labels and its target's engine, major version and
 * release (with `--server MAJOR`: postgresql, that major and any release of it, installed per job;
 * with `--server MAJOR.MINOR`: that release), and
 * long-polls `POST /v1/agent/claim`. While a job runs it heartbeats `POST /v1/jobs/:id/heartbeat`
 * (the API's lease lapses after `leaseSeconds` of silence and the job goes to another agent);
 * when the API answers `stop` (cancelled, taken over) the run is interrupted and its databases
 * are dropped. A finished run is written to the runs directory and submitted with the job id —
 * through the spool when the API is away (flushed before every claim), so the job completes when
 * the run arrives. A failed run is reported with the runner's own sentence. SIGTERM/SIGINT: the
 * running scenario cleans up, the job is released (queued again at once) and the agent exits.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ClaimedJob,
  HeartbeatAnswer,
  Problem,
  releaseOfParts,
  type Engine,
  type HardwareSpec,
  type StorageKind,
} from '@tunelab/contracts';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import type { RunnerConfig } from '../config.ts';
import { driverFor } from '../engines/index.ts';
import { createLedger } from '../engine/leftovers.ts';
import { SWEEP_BEFORE_RUN_MS, sweepLeftovers, sweepManagedLeftovers } from './sweep.ts';
import { EngineError, UsageError } from '../errors.ts';
import { CliError, EXIT, type ExitCode } from '../exit-codes.ts';
import { probeHardware } from '../probe/hardware.ts';
import { runAndDeliver, type Delivery } from './run-and-deliver.ts';
import { apiClient, checkToken, describeProblem, type ApiCall } from './api-client.ts';
import { flushSpool } from './spool.ts';

export type AgentOptions = {
  api: string;
  token: string;
  /** The server jobs run against; exactly one of `target` and `server`. */
  target?: string | undefined;
  /** `--server MAJOR`: each job on a throwaway PostgreSQL server of this major that the runner manages. */
  server?: number | undefined;
  /** `--server MAJOR.MINOR`: only jobs of that release (or none); absent: any release of `server`, one per job. */
  serverRelease?: string | undefined;
  labels: string[];
  /** --storage: the disk kind when it cannot be probed (a virtual disk). */
  storage?: StorageKind | undefined;
  /** Take one job, then exit; with none within `onceWaitSeconds`, exit 0 (1 when the API never answered). */
  once: boolean;
  onceWaitSeconds: number;
  signal: AbortSignal;
  log: (line: string) => void;
};

type Announce = {
  hardware: HardwareSpec;
  labels: string[];
  engine: Engine;
  server: number;
  /** The release jobs may name: the target's, or the one `--server` named; absent with `anyRelease`. */
  release?: string;
  anyRelease: boolean;
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** What the target runs (engine, major) and what this machine is, probed once at start. */
async function announce(
  opts: Pick<AgentOptions, 'target' | 'server' | 'serverRelease' | 'labels' | 'storage'>,
): Promise<Announce & { warnings: string[] }> {
  const { target, labels, storage } = opts;
  const storageOverride = storage ? { storageOverride: storage } : {};
  if (opts.server !== undefined) {
    // A managed server lives in a temporary directory of this machine, made per job: the storage
    // its runs report is that directory's, so the machine announced is the same machine (the disk
    // is measured by each run, not here).
    const probed = await probeHardware({ dataDirectory: tmpdir(), measure: false, ...storageOverride });
    return {
      hardware: probed.spec,
      labels,
      engine: 'postgresql',
      server: opts.server,
      ...(opts.serverRelease !== undefined ? { release: opts.serverRelease } : {}),
      anyRelease: opts.serverRelease === undefined,
      warnings: probed.warnings,
    };
  }
  if (target === undefined) throw new CliError('agent needs --target URL or --server MAJOR', EXIT.USAGE);
  const driver = driverFor(target);
  const admin = await driver.openAdmin(target, 'tunelab-agent');
  try {
    const env = await admin.environment();
    const dataDirectory = driver.isLocal(target) ? await admin.dataDirectory() : null;
    const probed = await probeHardware({ dataDirectory, ...storageOverride });
    const release = releaseOfParts(env.engine, env);
    return {
      hardware: probed.spec,
      labels,
      engine: env.engine,
      server: env.major,
      ...(release !== null ? { release } : {}),
      anyRelease: false,
      warnings: probed.warnings,
    };
  } finally {
    await admin.close();
  }
}

function refusal(r: { status: number; json: unknown; text: string }): string {
  const p = Problem.safeParse(r.json);
  return p.success ? describeProblem(p.data) : `HTTP ${r.status}: ${r.text.slice(0, 300)}`;
}

/** Runs the agent until SIGTERM (or after one job with `once`). Resolves to the exit code. */
export async function runAgent(config: RunnerConfig, opts: AgentOptions): Promise<ExitCode> {
  const call = apiClient(opts);
  const { log } = opts;
  // The token first, before the target is probed: a refused one ends the agent (exit 6); an API
  // that does not answer is retried by the claim loop below, which measures nothing until it does.
  const check = await checkToken(opts.api, opts.token);
  if (check.status === 'refused') throw new CliError(`the API refused this agent: ${check.message}`, EXIT.API_REFUSED);
  if (check.status === 'unchecked')
    log(`agent: could not check the token with the API (${check.message}); claiming will retry until it answers`);
  let me: Awaited<ReturnType<typeof announce>>;
  try {
    me = await announce(opts);
  } catch (e) {
    if (e instanceof EngineError || e instanceof CliError) throw e;
    throw new CliError(
      `cannot reach the target to learn its engine and version: ${(e as Error).message}`,
      EXIT.TARGET_UNREACHABLE,
    );
  }
  for (const w of me.warnings) log(`warning: ${w}`);
  // What earlier runs of this machine left (a killed agent cannot clean up after its run): managed
  // servers, and on the target its databases dropped and global settings put back, from the ledger
  // records every run writes before it creates anything (engine/leftovers.ts), as `tunelab run` does.
  const say = (line: string) => log(`agent: ${line}`);
  await (
    opts.target !== undefined ? sweepLeftovers(config, opts.target, say) : sweepManagedLeftovers(config, say)
  ).catch((e: unknown) => say(`could not clean up after earlier runs: ${(e as Error).message}`));
  log(
    `agent: ${me.engine} ${me.release ?? me.server} ${opts.server !== undefined ? `on a throwaway server per job${me.anyRelease ? ' (any release of it a job names)' : ''}` : 'at the target'}; ${me.hardware.physicalCores} cores, ${Math.round(me.hardware.memoryBytes / 2 ** 30)} GB, ${me.hardware.storage.kind}; labels ${me.labels.join(',') || '(none)'}`,
  );
  const started = Date.now();
  while (!opts.signal.aborted) {
    await flushSpool(config.spoolDir, {
      apiUrl: opts.api,
      token: opts.token,
      retries: 0,
    }).then(
      ({ results }) => {
        for (const r of results)
          log(
            `spool: ${r.runId} ${r.outcome.status === 'stored' ? 'stored' : `${r.outcome.status}: ${r.outcome.message}`}${r.movedTo ? `; refused for good, moved to ${r.movedTo}` : ''}`,
          );
      },
      () => undefined,
    );
    const waitSeconds = opts.once
      ? Math.max(0, Math.min(50, Math.ceil(opts.onceWaitSeconds - (Date.now() - started) / 1000)))
      : 25;
    let claim;
    try {
      claim = await call(
        'POST',
        'v1/agent/claim',
        {
          hardware: me.hardware,
          labels: me.labels,
          engine: me.engine,
          server: me.server,
          ...(me.release !== undefined ? { release: me.release } : {}),
          anyRelease: me.anyRelease,
          waitSeconds,
        },
        opts.signal,
      );
    } catch (e) {
      if (opts.signal.aborted) break;
      const why = (e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
      if (opts.once && Date.now() - started >= opts.onceWaitSeconds * 1000) {
        log(`claim: the API did not answer within ${opts.onceWaitSeconds} s (${why}); exiting`);
        return EXIT.RUN_FAILED;
      }
      log(`claim: the API did not answer (${why}); retrying in 5 s`);
      await sleep(opts.once ? Math.min(5000, opts.onceWaitSeconds * 1000) : 5000, opts.signal);
      continue;
    }
    if (claim.status === 204) {
      if (opts.once && Date.now() - started >= opts.onceWaitSeconds * 1000) {
        log(`agent: no job within ${opts.onceWaitSeconds} s; exiting`);
        return EXIT.OK;
      }
      continue;
    }
    if (claim.status === 401 || claim.status === 403 || claim.status === 400 || claim.status === 426)
      throw new CliError(`the API refused this agent: ${refusal(claim)}`, EXIT.API_REFUSED);
    const parsed = ClaimedJob.safeParse(claim.json);
    if (claim.status !== 200 || !parsed.success) {
      log(`claim: unexpected answer ${refusal(claim)}; retrying in 5 s`);
      await sleep(5000, opts.signal);
      continue;
    }
    const code = await runJob(config, opts, parsed.data, call);
    if (opts.once || opts.signal.aborted) return opts.signal.aborted ? EXIT.OK : code;
  }
  log('agent: stopped');
  return EXIT.OK;
}

async function runJob(config: RunnerConfig, opts: AgentOptions, job: ClaimedJob, call: ApiCall): Promise<ExitCode> {
  const { log } = opts;
  log(
    `job ${job.id}: ${job.scenario} ${JSON.stringify(job.params)}${job.release !== null ? ` on release ${job.release}` : ''} (attempt ${job.attempt + 1})`,
  );
  // A managed server of the job's release (the registry's newest build of it); one it does not have fails the job.
  const serverRelease = job.release ?? opts.serverRelease;
  const run = new AbortController();
  const stop: { reason: string | null } = { reason: null };
  const onSignal = () => {
    stop.reason ??= 'signal';
    run.abort();
  };
  opts.signal.addEventListener('abort', onSignal, { once: true });
  const beat = setInterval(() => {
    call('POST', `v1/jobs/${job.id}/heartbeat`, { attempt: job.attempt }).then(
      (r) => {
        const a = HeartbeatAnswer.safeParse(r.json);
        if (r.status === 409 || (a.success && a.data.stop)) {
          stop.reason ??= a.success ? `the job is ${a.data.state}` : 'the job is not ours any more';
          run.abort();
        }
      },
      // The API away: keep running; the run goes through the spool and completes the job later.
      (e: unknown) => log(`heartbeat: the API did not answer (${(e as Error).message})`),
    );
  }, job.heartbeatSeconds * 1000);
  try {
    const dirs = await listScenarioDirs(config.scenariosDir);
    const dir = dirs.find((d) => path.basename(d) === job.scenario);
    if (!dir) throw new CliError(`this runner has no scenario "${job.scenario}" in ${config.scenariosDir}`, EXIT.USAGE);
    const scenario = await loadScenario(dir);
    // A run of this agent whose clean-up gave up (the server was away) is removed before the next
    // one, as `tunelab run` does (an agent may run for months without a restart).
    if (opts.target !== undefined)
      await sweepLeftovers(config, opts.target, (line) => log(`job ${job.id}: ${line}`), SWEEP_BEFORE_RUN_MS).catch(
        (e: unknown) => log(`job ${job.id}: could not clean up after earlier runs: ${(e as Error).message}`),
      );
    const runId = randomUUID();
    log(`job ${job.id}: run ${runId}`);
    const delivered = await runAndDeliver(
      {
        runId,
        scenario,
        ...(opts.target !== undefined ? { target: opts.target } : {}),
        ...(opts.server !== undefined
          ? {
              server: opts.server,
              managed: {
                serversDir: config.serversDir,
                ledgerDir: config.ledgerDir,
                ...(serverRelease !== undefined ? { serverRelease } : {}),
              },
            }
          : {}),
        // Recorded before anything is created, so whatever a killed agent leaves is found again.
        ledger: createLedger(config.ledgerDir),
        hostLeaseMs: config.hostLeaseSeconds * 1000,
        stallTimeoutMs: config.stallTimeoutSeconds * 1000,
        cleanupRetryMs: config.cleanupRetrySeconds * 1000,
        // Installing the server on first use and warnings: worth a line in the agent's log.
        onEvent: (e) => {
          if (e.type === 'warning' || (e.type === 'phase' && e.phase === 'probe')) log(`job ${job.id}: ${e.message}`);
        },
        params: Object.fromEntries(Object.entries(job.params).map(([k, v]) => [k, String(v)])),
        ...(job.repetitions ? { repetitions: job.repetitions } : {}),
        ...(opts.storage ? { storage: opts.storage } : {}),
        signal: run.signal,
      },
      jobDelivery(config, opts, job, () => clearInterval(beat)),
    );
    return delivered.code;
  } catch (e) {
    clearInterval(beat);
    const sentence = e instanceof Error ? e.message : String(e);
    if (stop.reason === 'signal') {
      const r = await call('POST', `v1/jobs/${job.id}/release`, { attempt: job.attempt }).catch(() => null);
      log(
        `job ${job.id}: interrupted; its databases were dropped; ${r?.status === 200 ? 'released to the queue' : 'could not release it (the lease will lapse)'}`,
      );
      return EXIT.INTERRUPTED;
    }
    if (stop.reason) {
      log(`job ${job.id}: stopped (${stop.reason}); its databases were dropped`);
      return EXIT.OK;
    }
    // A refusal of the job itself (exit 2: a release the registry does not have, a scenario this
    // runner does not hold) fails it for good; anything else may pass on another attempt.
    const final = (e instanceof CliError && e.exitCode === EXIT.USAGE) || e instanceof UsageError;
    const r = await call('POST', `v1/jobs/${job.id}/fail`, { attempt: job.attempt, error: sentence, final }).catch(
      () => null,
    );
    log(
      `job ${job.id}: failed${final ? ' for good (retrying cannot help)' : ''}: ${sentence}${r?.status === 200 ? '' : ' (the API did not take the report)'}`,
    );
    return EXIT.RUN_FAILED;
  } finally {
    clearInterval(beat);
    opts.signal.removeEventListener('abort', onSignal);
    // runScenario cleaned up (success, failure or interrupt); what it could not remove is in the
    // ledger, for the sweep before the next job.
  }
}

/**
 * How the measured run of a job is delivered (app/run-and-deliver.ts, as `tunelab run` does):
 * written to the runs directory, else the OS temp directory, else printed in the log; submitted
 * with the job id; kept in the spool while the API is away (sent before the next claim). A file or
 * spool error never turns a measured run into a failed job.
 */
function jobDelivery(config: RunnerConfig, opts: AgentOptions, job: ClaimedJob, measured: () => void): Delivery {
  const say = (line: string) => opts.log(`job ${job.id}: ${line}`);
  return {
    config,
    api: { url: opts.api, token: opts.token },
    job: job.id,
    fileOf: (runId) => path.join(config.runsDir, `${runId}.json`),
    say,
    log: say,
    onMeasured: measured,
    onKept: (saved, file) => {
      if (saved.file === null) say(`here it is — save it and \`tunelab submit\` it later:\n${JSON.stringify(file)}`);
    },
    onDelivered: (outcome) => {
      // A refused run's file and the command that sends it again are said by deliver().
      if (outcome.status === 'stored') say(`run ${outcome.body.id} stored; job completed`);
    },
  };
}

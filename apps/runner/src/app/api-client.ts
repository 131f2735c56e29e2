import { Problem, RunAccepted } from '@tunelab/contracts';
import type { RunFile } from './run-file.ts';
import { RUNNER_VERSION } from '../version.ts';

export type SubmitOptions = {
  apiUrl: string;
  token: string;
  /** Retries after the first attempt for network errors, 5xx and 429. */
  retries?: number;
  baseDelayMs?: number;
  /** Upper bound for one wait, including a server's Retry-After. */
  maxDelayMs?: number;
  timeoutMs?: number;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
};

export type SubmitOutcome =
  | { status: 'stored'; httpStatus: number; replay: boolean; body: RunAccepted }
  /** A 2xx that is not the API's RunAccepted for this run: not proof that it was stored. */
  | { status: 'bad-answer'; httpStatus: number; message: string }
  /**
   * A 4xx. Only the API's own refusal (`problem`, its problem+json) is about the run; a 4xx without
   * one (a proxy's HTML 413, a wrong URL's 404) says nothing about the run, which is kept to send again.
   */
  | { status: 'refused'; httpStatus: number; problem: Problem | null; message: string }
  | { status: 'unreachable'; message: string };

/** Whether the API itself refused the run (its problem+json): sending the same run again changes nothing. */
export const refusedByApi = (o: SubmitOutcome): boolean => o.status === 'refused' && o.problem !== null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function describeProblem(p: Problem): string {
  const lines = [`${p.status} ${p.title}${p.detail ? `: ${p.detail}` : ''} (request ${p.requestId})`];
  for (const e of p.errors ?? []) lines.push(`  ${e.path}: ${e.message}`);
  return lines.join('\n');
}

/**
 * Why a request to the API got no answer, in words: a request given up after its timeout says so
 * and how long it waited (fetch's own words are "aborted" / "The operation was aborted due to
 * timeout"); otherwise the network's code (ECONNREFUSED …) or message.
 */
export function requestFailure(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string; name?: string } };
  const timedOut = [err.name, err.cause?.name].some((n) => n === 'TimeoutError' || n === 'AbortError');
  if (timedOut) return `the API sent no answer within ${timeoutMs / 1000} s, so the request was given up (timeout)`;
  return err.cause?.code ?? err.cause?.message ?? err.message;
}

/**
 * POSTs one run to `${apiUrl}/v1/runs`. 201 (created) and 200 (idempotent replay) are success;
 * network errors, 5xx and 429 are retried with exponential backoff (honouring Retry-After)
 * under the same Idempotency-Key, so a retry after a lost response never stores the run twice.
 */
export async function submitRun(run: RunFile, opts: SubmitOptions): Promise<SubmitOutcome> {
  const retries = opts.retries ?? 3;
  const base = opts.baseDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const url = new URL('v1/runs', opts.apiUrl.endsWith('/') ? opts.apiUrl : `${opts.apiUrl}/`);
  const body = JSON.stringify(run.submission);
  let lastReason = '';
  for (let attempt = 0; attempt <= retries; attempt++) {
    let retryAfter: number | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${opts.token}`,
          'idempotency-key': run.idempotencyKey,
          'user-agent': `tunelab-runner/${RUNNER_VERSION}`,
          'content-type': 'application/json',
          accept: 'application/json, application/problem+json',
        },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
      });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = null;
      }
      if (res.status === 200 || res.status === 201) return acceptedOrBad(run, res.status, json, text);
      if (res.status === 429 || res.status >= 500) {
        retryAfter = parseRetryAfter(res.headers.get('retry-after'));
        lastReason = `HTTP ${res.status}${json && typeof json === 'object' && 'title' in json ? ` ${String(json.title)}` : ''}`;
      } else {
        const problem = Problem.safeParse(json);
        return {
          status: 'refused',
          httpStatus: res.status,
          problem: problem.success ? problem.data : null,
          message: problem.success
            ? describeProblem(problem.data)
            : `HTTP ${res.status} without the API's problem+json (a proxy or a wrong URL?): ${JSON.stringify(text.slice(0, 300))}`,
        };
      }
    } catch (e) {
      lastReason = requestFailure(e, opts.timeoutMs ?? 60_000);
    }
    if (attempt === retries) break;
    const delayMs = Math.min(maxDelay, retryAfter ?? base * 2 ** attempt * (0.75 + Math.random() * 0.5));
    opts.onRetry?.({ attempt: attempt + 1, delayMs, reason: lastReason });
    await sleep(delayMs);
  }
  return {
    status: 'unreachable',
    message: `the API did not take the run after ${retries + 1} attempts (last: ${lastReason})`,
  };
}

/**
 * Only the API's own answer for this very run counts as stored: a RunAccepted with the run's
 * idempotency key and sample count. A proxy or a wrong URL answering `200 OK` with some text
 * must not make the spool delete a measured run.
 */
function acceptedOrBad(run: RunFile, httpStatus: number, json: unknown, text: string): SubmitOutcome {
  const parsed = RunAccepted.safeParse(json);
  const bad = (why: string): SubmitOutcome => ({
    status: 'bad-answer',
    httpStatus,
    message: `HTTP ${httpStatus} but ${why}; the run is kept (answer: ${JSON.stringify(text.slice(0, 200))})`,
  });
  if (!parsed.success) return bad('the answer is not a TuneLab RunAccepted');
  if (parsed.data.idempotencyKey !== run.idempotencyKey)
    return bad(`the answer is for Idempotency-Key ${parsed.data.idempotencyKey}, not ${run.idempotencyKey}`);
  if (parsed.data.samples !== run.submission.samples.length)
    return bad(`the answer counts ${parsed.data.samples} samples, the run has ${run.submission.samples.length}`);
  return { status: 'stored', httpStatus, replay: httpStatus === 200, body: parsed.data };
}

export type TokenCheck =
  | { status: 'ok'; runner: string }
  /** 401, 403, 426: this token (or this runner's version) will not be taken; nothing should be measured. */
  | { status: 'refused'; message: string }
  /** No answer, or one that is not a verdict on the token (5xx, 429, 404 from an API without the route). */
  | { status: 'unchecked'; message: string };

/**
 * `GET /v1/runners/me`: a cheap authenticated call that changes nothing, made before measuring so
 * that a wrong token is found before the measurement rather than after it.
 */
export async function checkToken(apiUrl: string, token: string, timeoutMs = 10_000): Promise<TokenCheck> {
  const url = new URL('v1/runners/me', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      headers: {
        authorization: `Bearer ${token}`,
        'user-agent': `tunelab-runner/${RUNNER_VERSION}`,
        accept: 'application/json, application/problem+json',
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (e) {
    return { status: 'unchecked', message: requestFailure(e, timeoutMs) };
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const problem = Problem.safeParse(json);
  const said = problem.success ? describeProblem(problem.data) : `HTTP ${res.status}: ${text.slice(0, 200)}`;
  if (res.status === 401 || res.status === 403 || res.status === 426) return { status: 'refused', message: said };
  const name = (json as { name?: unknown } | null)?.name;
  if (res.status === 200 && typeof name === 'string') return { status: 'ok', runner: name };
  return { status: 'unchecked', message: said };
}

/**
 * A JSON client of the API for the fleet routes (claim, heartbeat, release, fail): the answer's
 * status, parsed JSON (null when not JSON) and text. Network errors are thrown.
 */
export function apiClient(opts: { api: string; token: string }) {
  const base = opts.api.endsWith('/') ? opts.api : `${opts.api}/`;
  return async (method: string, route: string, body?: unknown, signal?: AbortSignal) => {
    const res = await fetch(new URL(route, base), {
      method,
      headers: {
        authorization: `Bearer ${opts.token}`,
        'user-agent': `tunelab-runner/${RUNNER_VERSION}`,
        'content-type': 'application/json',
        accept: 'application/json, application/problem+json',
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json, text };
  };
}

export type ApiCall = ReturnType<typeof apiClient>;

/**
 * `scenarios/<key>/published.json`: the article's own figures, validated with the contracts'
 * `PublishedFile`. The runner's loader, the published importer and the site read it here.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PublishedFile, type PublishedMachine, type ScenarioIssue } from '@tunelab/contracts';
import { parseTree } from 'jsonc-parser';
import { PublishedConditions } from './conditions.ts';
import { sha256Hex } from './hash.ts';

export type PublishedData = {
  file: PublishedFile;
  /** sha256 of the file's bytes: the scenario version published runs are stored under. */
  version: string;
};

/**
 * The version of a published.json: sha256 of its bytes without the top-level `conditions` member
 * (cut from the end of the member before it, or up to the member after it). The conditions are
 * TuneLab's reading of the article, not its figures: declaring them leaves the published runs
 * already stored from the file as they are. A file without `conditions` hashes as its bytes.
 */
export function publishedVersion(bytes: Uint8Array | string): string {
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8');
  const root = parseTree(text);
  const members = root?.type === 'object' ? (root.children ?? []) : [];
  const i = members.findIndex((m) => m.children?.[0]?.value === 'conditions');
  const member = members[i];
  if (!member) return sha256Hex(bytes);
  const before = members[i - 1];
  const after = members[i + 1];
  const cut = before
    ? text.slice(0, before.offset + before.length) + text.slice(member.offset + member.length)
    : text.slice(0, member.offset) + (after ? text.slice(after.offset) : text.slice(member.offset + member.length));
  return sha256Hex(cut);
}

/** Parses published.json bytes; problems name `label` (e.g. `demo/published.json`) and the field. */
export function parsePublished(
  bytes: Uint8Array | string,
  label: string,
): { ok: true; published: PublishedData } | { ok: false; issues: ScenarioIssue[] } {
  let json: unknown;
  try {
    json = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    return { ok: false, issues: [{ file: label, path: '(file)', message: `invalid JSON: ${(e as Error).message}` }] };
  }
  const parsed = PublishedFile.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ file: label, path: i.path.join('.') || '(root)', message: i.message })),
    };
  const conditions = parsed.data['conditions'];
  if (conditions !== undefined) {
    const checked = PublishedConditions.safeParse(conditions);
    if (!checked.success)
      return {
        ok: false,
        issues: checked.error.issues.map((i) => ({
          file: label,
          path: ['conditions', ...i.path].join('.'),
          message: i.message,
        })),
      };
  }
  return { ok: true, published: { file: parsed.data, version: publishedVersion(bytes) } };
}

/** Reads `<dir>/published.json`; null when the folder has none. */
export async function readPublishedBytes(dir: string): Promise<Buffer | null> {
  return readFile(path.join(dir, 'published.json')).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

/** One machine's repeated runs in seconds (`runs_ms` divided by 1000); `machine` null for an article that describes none. */
export type PublishedMachineRuns = {
  id: string;
  machine: PublishedMachine | null;
  runsSeconds: Record<string, number[]>;
};

function runsInSeconds(r: {
  runs_s?: Record<string, number[]> | undefined;
  runs_ms?: Record<string, number[]> | undefined;
}) {
  if (r.runs_s) return r.runs_s;
  if (r.runs_ms) return Object.fromEntries(Object.entries(r.runs_ms).map(([k, v]) => [k, v.map((x) => x / 1000)]));
  return null;
}

/**
 * The machines of a published file that have repeated runs: each described machine, then
 * `article` for top-level runs of an article that describes no machine. Empty when the article
 * printed single figures only.
 */
export function publishedMachineRuns(file: PublishedFile): PublishedMachineRuns[] {
  const out: PublishedMachineRuns[] = [];
  for (const m of file.hardware ?? []) {
    const runs = runsInSeconds(m);
    if (runs) out.push({ id: m.id, machine: m, runsSeconds: runs });
  }
  const top = runsInSeconds(file);
  if (top) out.push({ id: 'article', machine: null, runsSeconds: top });
  return out;
}

/**
 * The article's single figures: every top-level map of published.json whose values are all
 * numbers (e.g. `data_size_ratio_vs_ff100: { ff100: 1, ff80: 1.21 }`), by its key.
 */
export function publishedFigures(published: PublishedData | null): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  if (!published) return out;
  for (const [key, value] of Object.entries(published.file)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([, v]) => typeof v === 'number' && Number.isFinite(v)))
      out[key] = Object.fromEntries(entries) as Record<string, number>;
  }
  return out;
}

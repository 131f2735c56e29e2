/**
 * The tables of each page as plain data: pages render them, and the downloads serve the very
 * same rows as JSON and CSV.
 */
import type { ComparisonGroup, PairComparison, RunDetail } from '@tunelab/contracts';
import type { ScenarioView, SiteData } from './load.ts';
import { formatDuration, formatInterval, formatPct, formatPctInterval, formatValue, shortHash, type DurationFormat } from './format.ts';

export const MAX_LISTED_VALUES = 10;

export type TableRow = {
  variant: string;
  label: string;
  /** Every repetition's value in the metric's unit (seconds for durations). */
  values: number[];
  mean: number;
  avgText: string;
  n: number;
  ciText: string;
  /** "% faster" of this row as a candidate against its baseline, as printed. */
  pctText: string;
  pctNote: string | null;
};

export type PublishedTable = {
  machine: string;
  label: string;
  dataScale: number | null;
  repetitions: number;
  rows: TableRow[];
  verdicts: { baseline: string; candidate: string; sentence: string; kind: string }[];
  group: ComparisonGroup | null;
};

export type MeasuredTable = {
  id: string;
  heading: string;
  group: ComparisonGroup;
  /** How this table writes durations: the article's, or seconds when h:mm:ss would read 0:00:01.23. */
  format: DurationFormat;
  rows: TableRow[];
  verdicts: { baseline: string; candidate: string; sentence: string; kind: string; p: number | null; improvement: number | null }[];
};

export const groupLabel = (g: ComparisonGroup) =>
  g.source === 'published' ? `${g.hardware.class} (published${g.hardware.cpuModel ? `, ${g.hardware.cpuModel.replace(/^unspecified \(published: (.*)\)$/, '$1')}` : ''})` : g.hardware.class;

export const groupAnchor = (g: ComparisonGroup) => `g-${g.source}-${g.hardware.class.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}-${shortHash(g.scenario.version).slice(0, 8)}`;

/** Values of one group, per variant, gathered from the runs behind it. */
export function groupValues(g: ComparisonGroup, runDetail: Map<string, RunDetail>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const ref of g.runs) {
    const run = runDetail.get(ref.id);
    if (!run) continue;
    for (const s of run.samples) {
      if (s.metric !== g.metric || s.unit !== g.unit) continue;
      const list = out.get(s.variant) ?? [];
      list.push(s.value);
      out.set(s.variant, list);
    }
  }
  return out;
}

const pairFor = (g: ComparisonGroup | null, candidate: string): PairComparison | undefined => g?.comparisons.find((c) => c.candidate === candidate);

function tableRows(g: ComparisonGroup, values: Map<string, number[]>, sc: ScenarioView, fmt: DurationFormat): TableRow[] {
  return g.variants.map((v) => {
    const pair = pairFor(g, v.variant);
    return {
      variant: v.variant,
      label: sc.variantLabels[v.variant] ?? '',
      values: values.get(v.variant) ?? [],
      mean: v.mean,
      avgText: formatValue(v.mean, g.unit, fmt),
      n: v.n,
      ciText: formatInterval(v.ci95, g.unit, fmt),
      pctText: pair && pair.improvement !== null ? formatPct(pair.improvement) : '',
      pctNote: pair ? `vs ${pair.baseline}, 95% CI ${formatPctInterval(pair.ci95)}` : null,
    };
  });
}

export function publishedTables(sc: ScenarioView): PublishedTable[] {
  const art = sc.folder?.published;
  if (!art) return [];
  return art.machines.map((m) => {
    const group = sc.publishedGroups.find((g) => g.scenario.version === art.version && g.hardware.cpuModel === `unspecified (published: ${m.id})`) ??
      (m.id === 'article' ? sc.publishedGroups.find((g) => g.scenario.version === art.version) ?? null : null);
    const rows: TableRow[] = m.variants.map((v) => {
      const mean = v.values.reduce((s, x) => s + x, 0) / v.values.length;
      const summary = group?.variants.find((x) => x.variant === v.variant);
      const baseline = art.comparisons.find(([, c]) => c === v.variant)?.[0];
      const stated = baseline ? art.articlePercent.get(`${baseline}→${v.variant}`)?.get(m.id) : undefined;
      const pair = pairFor(group, v.variant);
      let pctText = '';
      let pctNote: string | null = null;
      if (stated) {
        pctText = stated;
        pctNote = `as the article printed it (vs ${baseline})${pair?.improvement != null ? `; computed from the runs: ${formatPct(pair.improvement)}` : ''}`;
      } else if (baseline) {
        const b = m.variants.find((x) => x.variant === baseline);
        if (b) {
          const bm = b.values.reduce((s, x) => s + x, 0) / b.values.length;
          pctText = formatPct(sc.metric.direction === 'lower-is-better' ? (bm - mean) / bm : (mean - bm) / bm);
          pctNote = `computed from the article's runs (vs ${baseline}); the article printed no percentage`;
        }
      }
      return {
        variant: v.variant,
        label: sc.variantLabels[v.variant] ?? art.variantText[v.variant] ?? '',
        values: v.values,
        mean,
        // The article's own AVG text when it printed one (0:03:46), else the mean in its format.
        avgText: v.avgText ?? formatDuration(mean, art.format),
        n: v.values.length,
        ciText: summary ? formatInterval(summary.ci95, 's', art.format) : '—',
        pctText,
        pctNote,
      };
    });
    return {
      machine: m.id,
      label: m.label,
      dataScale: m.dataScale,
      repetitions: Math.max(0, ...m.variants.map((v) => v.values.length)),
      rows,
      verdicts: (group?.comparisons ?? []).map((c) => ({ baseline: c.baseline, candidate: c.candidate, sentence: c.verdict.sentence, kind: c.verdict.kind })),
      group,
    };
  });
}

/**
 * The article's h:mm:ss suits runs of minutes; a machine whose every variant takes under a minute
 * (the default scale) is shown in seconds instead, where 0.859 reads better than 0:00:00.86.
 */
export function measuredFormat(sc: ScenarioView, g: ComparisonGroup): DurationFormat {
  return sc.format === 'hms' && g.variants.every((v) => Math.abs(v.mean) < 60) ? 's' : sc.format;
}

export function measuredTables(sc: ScenarioView, data: SiteData, groups: ComparisonGroup[] = sc.classGroups): MeasuredTable[] {
  const multipleVersions = new Set(groups.map((g) => g.scenario.version)).size > 1;
  return groups.map((g) => {
    const format = measuredFormat(sc, g);
    return {
      id: groupAnchor(g),
      heading: `${g.hardware.class}${multipleVersions ? ` — scenario version ${shortHash(g.scenario.version)}` : ''}`,
      group: g,
      format,
      rows: tableRows(g, groupValues(g, data.runDetail), sc, format),
      verdicts: g.comparisons.map((c) => ({
        baseline: c.baseline,
        candidate: c.candidate,
        sentence: c.verdict.sentence,
        kind: c.verdict.kind,
        p: c.welch?.p ?? null,
        improvement: c.improvement,
      })),
    };
  });
}

/** Comparison pairs of a scenario, with each group's estimate: the rows of the forest plots. */
export function differenceRows(sc: ScenarioView) {
  const pairs = new Map<string, { baseline: string; candidate: string; rows: { label: string; estimate: number; low: number | null; high: number | null; significant: boolean }[] }>();
  for (const g of [...sc.publishedGroups, ...sc.classGroups]) {
    for (const c of g.comparisons) {
      if (c.improvement === null) continue;
      const k = `${c.baseline}→${c.candidate}`;
      const entry = pairs.get(k) ?? { baseline: c.baseline, candidate: c.candidate, rows: [] };
      entry.rows.push({ label: groupLabel(g), estimate: c.improvement, low: c.ci95?.low ?? null, high: c.ci95?.high ?? null, significant: c.verdict.significant });
      pairs.set(k, entry);
    }
  }
  return [...pairs.values()];
}

/** Server settings per group, and which of them differ between the groups. */
export function settingsDiff(sc: ScenarioView, data: SiteData) {
  const groups = [...sc.publishedGroups, ...sc.classGroups];
  const columns = groups.map((g) => {
    const values = new Map<string, Set<string>>();
    for (const ref of g.runs) {
      const run = data.runDetail.get(ref.id);
      for (const [k, v] of Object.entries(run?.databaseEnvironment.settings ?? {})) {
        const set = values.get(k) ?? new Set<string>();
        set.add(v);
        values.set(k, set);
      }
    }
    return { label: groupLabel(g), anchor: groupAnchor(g), values };
  });
  const names = [...new Set(columns.flatMap((c) => [...c.values.keys()]))].sort();
  const rows = names
    .map((name) => ({
      setting: name,
      values: columns.map((c) => {
        const set = c.values.get(name);
        return set ? [...set].sort().join(' | ') : 'default';
      }),
    }))
    .filter((r) => new Set(r.values).size > 1);
  return { columns: columns.map((c) => ({ label: c.label, anchor: c.anchor })), rows };
}

/** `tunelab run …` that repeats a run: same scenario, repetitions and parameters. */
export function reproduceCommand(run: RunDetail): string {
  const reps = Math.max(1, ...run.samples.map((s) => s.repetition));
  const params = Object.entries(run.params)
    .filter(([k, v]) => !k.startsWith('published.') && v !== null)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => ` --param ${shellQuote(`${k}=${String(v)}`)}`)
    .join('');
  const published = run.source === 'published' ? ' --published-scale' : '';
  return `tunelab run ${run.scenario.key} --target postgres://USER@HOST:5432/DBNAME --repetitions ${reps}${params}${published}`;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_.,:=\/+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function toCsv(header: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cell = (v: string | number | boolean | null | undefined) => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

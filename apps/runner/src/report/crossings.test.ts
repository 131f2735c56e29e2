/**
 * One crossing algorithm: the `crossover` notes a run carries and the closing report's crossing
 * lines are both @tunelab/answers' `declaredCrossings` (the API's and the site's). Checked on real
 * `tunelab run innodb-compression-insert` runs against the local MariaDB (tests/fixtures), whose
 * notes were recorded by the runner when they ran.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerRun } from '@tunelab/answers';
import { RunSubmission } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { crossoverNotes } from '../engine/crossovers.ts';
import { renderRunTable } from './table.ts';

const fixture = (file: string) =>
  RunSubmission.parse(
    (
      JSON.parse(readFileSync(new URL(`../../../../tests/fixtures/${file}`, import.meta.url), 'utf8')) as {
        submission: unknown;
      }
    ).submission,
  );
const RUNS = ['real-runs/innodb-compression-insert.json', 'innodb-rows-20000.json', 'innodb-rows-40000.json'];

describe('crossings in the run’s notes and the closing report', async () => {
  const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));

  it.each(RUNS)('%s: the notes are the crossings the runner recorded when it ran', (file) => {
    const run = fixture(file);
    const recorded = run.notes.filter((n) => n.kind === 'crossover');
    expect(recorded.length).toBeGreaterThan(0);
    expect(crossoverNotes(scenario.doc, run.timeSeries)).toEqual(recorded);
  });

  it.each(RUNS)('%s: for one repetition, the report’s crossing is the note’s', (file) => {
    const run = fixture(file);
    const one = RunSubmission.parse({
      ...run,
      samples: run.samples.filter((s) => s.repetition === 1),
      timeSeries: run.timeSeries.filter((p) => p.repetition === 1),
    });
    const report = renderRunTable(scenario, one)
      .split('\n')
      .filter((l) => l.startsWith('crossing: '));
    const answered = answerRun({ doc: scenario.doc, published: scenario.published, run: one, metric: 'rows_per_s' });
    expect(report).toHaveLength(answered.groups[0]!.crossings.length);
    const notes = crossoverNotes(scenario.doc, one.timeSeries);
    expect(notes).toHaveLength(answered.groups[0]!.crossings.length);
    const xs = (text: string) => [...text.matchAll(/at x ≈ (\d+)/g)].map((m) => m[1]);
    for (const c of answered.groups[0]!.crossings) {
      const line = report.find(
        (l) =>
          l.startsWith(`crossing: ${c.metric}: ${c.candidate} `) ||
          l.endsWith(`of ${c.baseline} and ${c.candidate} do not cross`),
      )!;
      const note = notes.find((n) => n.text.startsWith(`${c.baseline} vs ${c.candidate}:`))!;
      expect(xs(line)).toEqual(xs(note.text));
      expect(xs(note.text)).toEqual(c.crossings.map((x) => String(Math.round(x.x))));
    }
  });
});

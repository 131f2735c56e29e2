/**
 * scenario.yaml `article_conditions` (contracts' article-conditions.ts) held against the article's
 * own figures in published.json: each machine is one the article describes, and where the
 * article states the figures a ratio is made of — its memory, a server setting — the ratio must be
 * theirs (within the rounding of a figure printed as "12 GB"). A ratio typed wrong would make
 * every `--like-article` run reproduce conditions the article never had.
 */
import {
  ownValue,
  parseSizeText,
  type ArticleConditions,
  type PublishedFile,
  type ScenarioIssue,
} from '@tunelab/contracts';

/** How far a stated ratio may lie from the one published.json's figures give: rounding of "12 GB" (±4 %). */
export const RATIO_TOLERANCE = 0.05;

const GIB = 1024 ** 3;
const off = (stated: number, fromFigures: number) => Math.abs(stated / fromFigures - 1) > RATIO_TOLERANCE;
const fixed = (x: number) => Number(x.toFixed(4));

export function checkArticleConditions(
  conditions: ArticleConditions,
  published: PublishedFile | null,
  file: string,
): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const machines = published?.hardware ?? [];
  const settings = published?.setup?.server_settings ?? {};
  conditions.machines.forEach((c, i) => {
    const path = `article_conditions.machines[${i}]`;
    const machine = machines.find((m) => m.id === c.hardware);
    if (!machine) {
      issues.push({
        file,
        path: `${path}.hardware`,
        message: `published.json describes no machine "${c.hardware}"; expected one of: ${machines.map((m) => m.id).join(', ') || '(published.json lists no hardware)'}`,
      });
      return;
    }
    const data = parseSizeText(c.data_size)!;
    const toMemory = data / (machine.memory_gb * GIB);
    if (off(c.data_to_memory, toMemory))
      issues.push({
        file,
        path: `${path}.data_to_memory`,
        message: `${c.data_to_memory} is not ${c.data_size} over the ${machine.memory_gb} GB of published.json's ${c.hardware} (${fixed(toMemory)})`,
      });
    for (const [name, stated] of Object.entries(c.settings_to_data)) {
      const value = ownValue(settings, name);
      const bytes = value === undefined ? null : parseSizeText(value);
      if (bytes === null) continue; // the article does not print it as a size: nothing to hold it against
      if (off(stated, bytes / data))
        issues.push({
          file,
          path: `${path}.settings_to_data.${name}`,
          message: `${stated} is not published.json's ${name} ${value} over ${c.data_size} (${fixed(bytes / data)})`,
        });
    }
  });
  return issues;
}

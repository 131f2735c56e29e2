/**
 * scenario.yaml `article_conditions` (contracts' article-conditions.ts) held against the article's
 * own figures in published.json: each machine is one the article describes, and where the
 * article states the figures a ratio is made of — its memory, a server setting — the ratio must be
 * theirs (within the rounding of a figure printed as "12 GB"). A ratio typed wrong would make
 * every `--like-article` run reproduce conditions the article never had.
 */
import {
  ownValue,
  paramUnitBytes,
  parseSizeText,
  type ArticleConditions,
  type ScenarioDocument,
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
  params: ScenarioDocument['params'] = {},
): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const machines = published?.hardware ?? [];
  const settings = published?.setup?.server_settings ?? {};
  conditions.machines.forEach((c, i) => {
    const path = `article_conditions.machines[${i}]`;
    const machine = machines.find((m) => m.id === c.hardware);
    const data = parseSizeText(c.data_size)!;
    // A parameter scaled with the data holds against the article's value the scenario declares.
    for (const [name, { ratio, unit }] of Object.entries(c.params_to_data)) {
      const pub = ownValue(params, name)?.published;
      if (typeof pub !== 'number') continue;
      const fromFigures = (pub * paramUnitBytes(unit)) / data;
      if (off(ratio, fromFigures))
        issues.push({
          file,
          path: `${path}.params_to_data.${name}`,
          message: `${ratio} is not the article's ${name} ${pub} (${unit}) over ${c.data_size} (${fixed(fromFigures)})`,
        });
    }
    if (!machine) {
      // An article that describes no machine: a label says so; nothing else to hold the ratios against.
      if (c.label === undefined)
        issues.push({
          file,
          path: `${path}.hardware`,
          message: `published.json describes no machine "${c.hardware}"; expected one of: ${machines.map((m) => m.id).join(', ') || '(published.json lists no hardware)'}, or a label for a machine the article does not describe`,
        });
      else if (c.data_to_memory !== undefined)
        issues.push({
          file,
          path: `${path}.data_to_memory`,
          message: `the article does not describe "${c.hardware}", so its memory, and a data : memory ratio, are not known`,
        });
      return;
    }
    const toMemory = data / (machine.memory_gb * GIB);
    if (c.data_to_memory !== undefined && off(c.data_to_memory, toMemory))
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

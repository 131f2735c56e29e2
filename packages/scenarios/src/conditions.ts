/**
 * The conditions an article's result rests on, beyond its scale (`conditions` in
 * `scenarios/<key>/published.json`): e.g. InnoDB data larger than the buffer pool, a workload
 * window long enough to reach a steady state. Each names a value a run records (a metric of a
 * variant, a parameter or a server setting) and the threshold it must reach; `@tunelab/answers`
 * holds every measured group against them, and a group where one is not met or not recorded is
 * not comparable with the article. A scenario whose article rests on nothing beyond its scale
 * says so: `essential: []` with `why`.
 *
 * Why published.json and not scenario.yaml: the conditions are a reading of the article, like its
 * figures; scenario.yaml describes the experiment. Both files are part of the scenario version
 * (the folder hash), so a change of either starts a new version, but `conditions` is left out of
 * the published version (`publishedVersion`): the article's figures did not change, so the
 * published runs stored from them stay as they are.
 */
import { boundedString, finiteNumber, identifier, type ScenarioDocument, type ScenarioIssue } from '@tunelab/contracts';
import { z } from 'zod';

/** A value a run records: a metric (of one variant, or of every variant), a parameter, a setting. */
export const ConditionValue = z.union([
  z.strictObject({ metric: identifier, variant: identifier.optional() }),
  z.strictObject({ param: identifier }),
  z.strictObject({ setting: z.string().min(1).max(100) }),
]);
export type ConditionValue = z.infer<typeof ConditionValue>;

export const EssentialCondition = z
  .strictObject({
    key: identifier,
    /** What must hold, in words: "the plain table's data outgrows the buffer pool". */
    label: boundedString(300),
    value: ConditionValue,
    /** The value (its smallest over the group's units) must reach this; a factor of `of` when given. */
    at_least: finiteNumber.optional(),
    of: ConditionValue.optional(),
    /** The unit of a parameter's value and of an absolute threshold (`s`, `MB`…); metrics have their own. */
    unit: z.string().min(1).max(32).optional(),
    /** Or: the value must equal this (settings compared as sizes, times and on/off). */
    equals: z.string().min(1).max(100).optional(),
    /** Why the article's result depends on it, from the article. */
    why: boundedString(2000),
  })
  .refine((c) => (c.at_least === undefined) !== (c.equals === undefined), {
    message: 'give either at_least or equals',
  })
  .refine((c) => c.of === undefined || c.at_least !== undefined, { message: 'of needs at_least' });
export type EssentialCondition = z.infer<typeof EssentialCondition>;

export const PublishedConditions = z.strictObject({
  essential: z.array(EssentialCondition).max(20),
  /** Why these are the conditions, or why there are none beyond scale. */
  why: boundedString(2000),
});
export type PublishedConditions = z.infer<typeof PublishedConditions>;

/** The `conditions` of a published.json object, or null when it declares none (or an invalid one). */
export function publishedConditions(
  file: Readonly<Record<string, unknown>> | null | undefined,
): PublishedConditions | null {
  const conditions = file?.['conditions'];
  if (conditions === undefined) return null;
  const parsed = PublishedConditions.safeParse(conditions);
  return parsed.success ? parsed.data : null;
}

/** Problems of `conditions` against scenario.yaml: unknown metrics, variants, parameters, unlisted settings. */
export function checkConditions(conditions: PublishedConditions, doc: ScenarioDocument, file: string): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const metrics = doc.metrics.map((m) => m.key);
  const variants = doc.variants.map((v) => v.key);
  const params = Object.keys(doc.params);
  const check = (v: ConditionValue, path: string) => {
    if ('metric' in v) {
      if (!metrics.includes(v.metric))
        issues.push({
          file,
          path: `${path}.metric`,
          message: `unknown metric "${v.metric}"; expected one of: ${metrics.join(', ')}`,
        });
      if (v.variant !== undefined && !variants.includes(v.variant))
        issues.push({
          file,
          path: `${path}.variant`,
          message: `unknown variant "${v.variant}"; expected one of: ${variants.join(', ')}`,
        });
    } else if ('param' in v) {
      if (!params.includes(v.param))
        issues.push({
          file,
          path: `${path}.param`,
          message: `unknown parameter "${v.param}"; expected one of: ${params.join(', ') || '(none declared)'}`,
        });
    } else if (!doc.report.relevant_settings.includes(v.setting)) {
      // Comparison groups carry the values of the relevant settings only.
      issues.push({
        file,
        path: `${path}.setting`,
        message: `setting "${v.setting}" must be listed in scenario.yaml report.relevant_settings (${doc.report.relevant_settings.join(', ') || 'none listed'})`,
      });
    }
  };
  conditions.essential.forEach((c, i) => {
    check(c.value, `conditions.essential.${i}.value`);
    if (c.of) check(c.of, `conditions.essential.${i}.of`);
  });
  const keys = conditions.essential.map((c) => c.key);
  keys.forEach((k, i) => {
    if (keys.indexOf(k) !== i)
      issues.push({ file, path: `conditions.essential.${i}.key`, message: `duplicate key "${k}"` });
  });
  return issues;
}

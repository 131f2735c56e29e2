/**
 * The API's URL layout and the links its responses carry. The results database returns records
 * with ids and comparison query parameters instead; the API adds these links to what it serves,
 * and the site adds the same ones when it reads the database directly, so both publish identical
 * records.
 */
import type { RunAccepted, RunDetail, RunSummary, HardwareDetail, HardwareSummary } from './api.ts';
import type {
  ComparisonGroup,
  ComparisonQuery,
  ComparisonResult,
  Finding,
  SimilarBySpec,
  SimilarHardware,
} from './comparisons.ts';
import type { GroupAnswer, ScenarioAnswers } from './answers.ts';

/** Query parameters of a `/v1/comparisons` request, in the order they appear in the link. */
export type ComparisonParams = Partial<Record<keyof ComparisonQuery, string>>;

export type RunAcceptedRecord = Omit<RunAccepted, 'links'>;
export type RunSummaryRecord = Omit<RunSummary, 'links'>;
export type RunDetailRecord = Omit<RunDetail, 'links'>;
export type HardwareSummaryRecord = Omit<HardwareSummary, 'links'>;
export type HardwareDetailRecord = Omit<HardwareDetail, 'links'>;
export type RunRef = Omit<ComparisonGroup['runs'][number], 'link'>;
export type ComparisonGroupRecord = Omit<ComparisonGroup, 'runs'> & { runs: RunRef[] };
export type ComparisonResultRecord = Omit<ComparisonResult, 'groups'> & { groups: ComparisonGroupRecord[] };
/** A finding with the ids of its runs and what its comparison link is made from. */
export type FindingRecord<C = ComparisonParams> = Omit<Finding, 'runs' | 'links'> & { runIds: string[]; comparison: C };
/** One group's answers with run ids (the API adds the links). */
export type GroupAnswerRecord = Omit<GroupAnswer, 'group'> & { group: Omit<ComparisonGroupRecord, 'comparisons'> };
export type ScenarioAnswersRecord = Omit<ScenarioAnswers, 'groups' | 'leftOut'> & {
  groups: GroupAnswerRecord[];
  leftOut: GroupAnswerRecord[];
};
type SimilarHardwareGroup = SimilarHardware['items'][number];
export type SimilarHardwareRecord = Omit<SimilarHardware, 'items'> & {
  items: (Omit<SimilarHardwareGroup, 'links'> & { comparison: ComparisonParams })[];
};

export type SimilarBySpecRecord = Omit<SimilarBySpec, 'items'> & { items: SimilarHardwareRecord['items'] };

export const runPath = (id: string) => `/v1/runs/${id}`;
const hardwarePath = (fingerprint: string) => `/v1/hardware/${fingerprint}`;
const comparisonsPath = (params: ComparisonParams) => `/v1/comparisons?${new URLSearchParams(params).toString()}`;

type Self = { links: { self: string } };

/** A run (accepted, summary or detail) with `links.self`. */
export const linkRun = <T extends { id: string }>(run: T): T & Self => ({ ...run, links: { self: runPath(run.id) } });

/** A hardware profile (summary or detail) with `links.self`. */
export const linkHardware = <T extends { fingerprint: string }>(h: T): T & Self => ({
  ...h,
  links: { self: hardwarePath(h.fingerprint) },
});

/** A page of records with their links. */
export const linkPage = <T, U>(page: { items: T[]; nextCursor: string | null }, link: (item: T) => U) => ({
  items: page.items.map(link),
  nextCursor: page.nextCursor,
});

const linkGroup = (g: ComparisonGroupRecord): ComparisonGroup => ({
  ...g,
  runs: g.runs.map((r) => ({ ...r, link: runPath(r.id) })),
});

/** Comparison groups whose runs carry their links. */
export const linkComparisons = (result: ComparisonResultRecord): ComparisonResult => ({
  ...result,
  groups: result.groups.map(linkGroup),
});

/** A finding with its runs as links and `links.comparison` pointing at the comparison behind it. */
export function linkFinding({ runIds, comparison, ...rest }: FindingRecord): Finding {
  return { ...rest, runs: runIds.map(runPath), links: { comparison: comparisonsPath(comparison) } };
}

/** The classes of a "hardware like …" answer, each linking its comparisons. */
const linkSimilarItems = (items: SimilarHardwareRecord['items']): SimilarHardware['items'] =>
  items.map(({ comparison, ...item }) => ({ ...item, links: { comparisons: comparisonsPath(comparison) } }));

/** A "hardware like mine" answer whose classes link their comparisons. */
export const linkSimilar = (similar: SimilarHardwareRecord): SimilarHardware => ({
  ...similar,
  items: linkSimilarItems(similar.items),
});

const linkGroupAnswer = (a: GroupAnswerRecord): GroupAnswer => ({
  ...a,
  group: { ...a.group, runs: a.group.runs.map((r) => ({ ...r, link: runPath(r.id) })) },
});

/** A scenario's answers whose groups' runs (counted and left out) carry their links. */
export const linkAnswers = (answers: ScenarioAnswersRecord): ScenarioAnswers => ({
  ...answers,
  groups: answers.groups.map(linkGroupAnswer),
  leftOut: answers.leftOut.map(linkGroupAnswer),
});

/** A "hardware like mine" answer for a spec, its classes linking their comparisons. */
export const linkSimilarBySpec = (similar: SimilarBySpecRecord): SimilarBySpec => ({
  ...similar,
  items: linkSimilarItems(similar.items),
});

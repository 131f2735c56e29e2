/**
 * The findings feed's entries for changes between PostgreSQL releases and over time within one
 * (GET /v1/release-events, both kinds): one entry per event, its id fixed for the event (reported
 * once), updated when an operator acknowledged it, and its state — new, expected (a new major) or
 * acknowledged — in the title.
 */
import { classLabel } from '@tunelab/answers';
import type { ReleaseEvent } from '@tunelab/contracts';
import { escapeXml as esc } from './format.ts';
import { signed } from './release-line.ts';

/** The scenario page's anchor of its release line (ReleaseLine.astro). */
export const RELEASE_LINE_ANCHOR = 'release-line';

/** The event in one line: the release that introduced the change (or the release it happened on), its size and state. */
export function releaseEventTitle(e: ReleaseEvent): string {
  const on = `${e.scenario} on ${classLabel(e.hardwareClass)}`;
  return e.kind === 'over-time'
    ? `${on}: ${e.candidate} vs ${e.baseline} changed over time on PostgreSQL ${e.release} by ${signed(e.change)} from the run received ${e.receivedAt.slice(0, 10)} (${e.state})`
    : `${on}: PostgreSQL ${e.to} changed ${e.candidate} vs ${e.baseline} by ${signed(e.change)} from ${e.from} (${e.state})`;
}

/**
 * What follows the event's sentence: the run a drift starts at. A step's sentence has its size,
 * the interval adjusted with its p and that p already (the step's own 95 % interval, `ci95`, stays
 * in the API's event: printed here beside the adjusted one, the entry gave two intervals).
 */
function figuresOf(e: ReleaseEvent): string {
  return e.kind === 'over-time' ? `: first run of the change ${e.run} (change points as Apache Otava finds them)` : '';
}

/** Atom `<entry>` elements for the events, newest sighting first, linking to each scenario's release line. */
export function releaseEventEntries(events: readonly ReleaseEvent[], site: string): string[] {
  return events
    .filter((e) => e.current)
    .map((e) => {
      const updated = e.acknowledgedAt ?? e.firstSeenAt;
      const link = `${site}/scenarios/${e.scenario}/#${RELEASE_LINE_ANCHOR}`;
      const state =
        e.state === 'expected'
          ? `Expected: ${e.reason ?? 'a new major'}.`
          : e.state === 'acknowledged'
            ? `Acknowledged${e.reason ? `: ${e.reason}` : ''}.`
            : 'New.';
      const summary = `${e.sentence}${figuresOf(e)}. ${state} Metric ${e.metric}; first seen ${e.firstSeenAt}.`;
      return `  <entry>
    <id>${esc(`tag:tunelab,2026:release-event/${e.id}`)}</id>
    <title>${esc(releaseEventTitle(e))}</title>
    <updated>${updated}</updated>
    <link rel="alternate" type="text/html" href="${esc(link)}"/>
    <summary>${esc(summary)}</summary>
  </entry>`;
    });
}

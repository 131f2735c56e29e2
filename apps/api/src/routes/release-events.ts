import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AcknowledgeReleaseEvent,
  Problem,
  ReleaseEvent,
  ReleaseEventList,
  ReleaseEventsQuery,
} from '@tunelab/contracts';
import { ApiError } from '../problem.ts';

const EventId = z.strictObject({ id: z.uuid() });

/** Changes between PostgreSQL releases and over time within one as events: anyone reads them, an operator acknowledges one. */
const releaseEvents: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/release-events',
    {
      schema: {
        summary:
          'Changes between adjacent PostgreSQL releases and over time within one, each recorded once with its state',
        description:
          'Every change a scenario’s release line reports is an event, recorded the first time it is read and kept. `kind` `between-releases`: a step of the `releaseLine` of GET /v1/answers (Welch on the adjacent releases’ block log ratios, Benjamini–Hochberg-adjusted, above the class’s noise), with `from`, `to`, `ci95` and `adjustedP`. `kind` `over-time`: a change within one release (a release point’s `drift`: the per-run ratio in received order, Otava’s E-divisive, p < 0.001), with `release`, the `run` where it starts and its `receivedAt`, `runsBefore`, the ratio `before` and `after` and `p`; it is one event per release, series, direction and `nth` such change, so more runs that move its start by a run update `run`, `receivedAt` and `runsBefore` in place. `state` is `new`, `expected` (the step to a new major) or `acknowledged` (an operator’s, with the note as `reason`); `current` turns false when more runs no longer report it. Newest first; `scenario`, `state` and `kind` filter.',
        tags: ['answers'],
        querystring: ReleaseEventsQuery,
        response: { 200: ReleaseEventList, 400: Problem, 503: Problem },
      },
    },
    async (request) => app.resultsDb.releaseEvents(request.query),
  );

  app.post(
    '/release-events/:id/acknowledge',
    {
      onRequest: [app.requireOperator],
      schema: {
        summary: 'Acknowledge a change between releases or over time within one',
        description:
          'Marks the event `acknowledged` (whatever its state), with an optional `note` (1–500 characters) shown as its reason; acknowledging again keeps the first time and replaces the note. 404 for an unknown id.',
        tags: ['answers'],
        security: [{ operatorToken: [] }],
        params: EventId,
        body: AcknowledgeReleaseEvent,
        response: { 200: ReleaseEvent, 400: Problem, 401: Problem, 403: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const operatorId = request.operator?.id;
      if (!operatorId) throw new ApiError('unauthorized', 'send an operator token as `Authorization: Bearer <token>`');
      const event = await app.resultsDb.acknowledgeReleaseEvent(request.params.id, {
        operatorId,
        ...(request.body.note !== undefined ? { note: request.body.note } : {}),
      });
      if (!event) throw new ApiError('not-found', `no release event with id ${request.params.id}`);
      return event;
    },
  );
};

export default releaseEvents;

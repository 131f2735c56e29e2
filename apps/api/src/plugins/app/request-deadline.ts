import fp from 'fastify-plugin';
import { ApiError, sendProblem } from '../../problem.ts';

export type RequestDeadlineOptions = { requestTimeoutMs: number };

/**
 * The whole request, body included, must arrive within `requestTimeoutMs`. Node's own
 * `requestTimeout` stops counting once the headers are in and the request is handed over, so a
 * client that sends headers and then trickles (or stalls) the body would hold the connection
 * for as long as it likes. When the deadline passes with the body incomplete, the API answers
 * 408 problem+json and closes the connection; nothing is stored (the body was never parsed).
 */
export default fp<RequestDeadlineOptions>(
  async (app, opts) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.raw.complete) return;
      const timer = setTimeout(() => {
        if (request.raw.complete || reply.sent) return;
        request.log.info({ ms: opts.requestTimeoutMs }, 'request body not received in time');
        reply.header('connection', 'close');
        reply.raw.once('finish', () => request.raw.socket?.destroy());
        void sendProblem(
          reply,
          request,
          new ApiError(
            'request-timeout',
            `the request body was not received within ${opts.requestTimeoutMs / 1000} s; nothing was stored`,
          ),
        );
      }, opts.requestTimeoutMs);
      timer.unref();
      const clear = () => clearTimeout(timer);
      request.raw.once('end', clear);
      request.raw.once('close', clear);
      reply.raw.once('finish', clear);
    });
  },
  { name: 'request-deadline' },
);

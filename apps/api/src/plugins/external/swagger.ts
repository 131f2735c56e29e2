import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import helmet from '@fastify/helmet';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

const HELMET_OPTIONS = {
  contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"] } },
  // Public data: other origins may read it (CORS is their browser's business, not CORP's).
  crossOriginResourcePolicy: { policy: 'cross-origin' },
} as const;

/**
 * The headers @fastify/helmet sets with `HELMET_OPTIONS`, read once from a throwaway instance. The
 * plugin builds helmet's middleware again on every request (3 % of the API's CPU on an ingest,
 * apps/api/bench/README.md); the headers do not depend on the request, so the API sets this list.
 */
async function helmetHeaders(): Promise<[string, string][]> {
  const probe = Fastify();
  let headers: Record<string, unknown> = {};
  await probe.register(helmet, HELMET_OPTIONS);
  probe.get('/', async (_request, reply) => {
    headers = reply.raw.getHeaders();
    return '';
  });
  await probe.inject('/');
  await probe.close();
  return Object.entries(headers).map(([name, value]) => [name, String(value)]);
}

/** Sets helmet's security headers on every response, as the plugin does (on the raw response, before any hook). */
async function setSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = await helmetHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
}

/**
 * OpenAPI 3 generated from the routes' zod schemas; `/openapi.json` and interactive docs at `/docs`.
 * Security headers are @fastify/helmet's on every response (a JSON API is unaffected by them);
 * the docs pages get swagger-ui's own CSP, which lists the hashes of its inline scripts, and no
 * page of this API may be framed (clickjacking).
 */
export default fp(
  async (app) => {
    await setSecurityHeaders(app);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'TuneLab API',
          version: '0.1.0',
          description:
            'Ingests benchmark runs from TuneLab runners and answers hardware-specific queries. Reads are public; writes need a runner bearer token.',
        },
        components: {
          securitySchemes: {
            runnerToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'Token minted by `npm run admin -- create-runner NAME`',
            },
            operatorToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'Operator token minted by `npm run admin -- create-operator NAME` (requests fleet jobs)',
            },
          },
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: (header) => header.replace("frame-ancestors 'self'", "frame-ancestors 'none'"),
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger' },
);

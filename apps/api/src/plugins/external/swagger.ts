import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import helmet from '@fastify/helmet';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * OpenAPI 3 generated from the routes' zod schemas; `/openapi.json` and interactive docs at `/docs`.
 * Security headers come from @fastify/helmet on every response (a JSON API is unaffected by them);
 * the docs pages get swagger-ui's own CSP, which lists the hashes of its inline scripts, and no
 * page of this API may be framed (clickjacking).
 */
export default fp(
  async (app) => {
    await app.register(helmet, {
      contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"] } },
      // Public data: other origins may read it (CORS is their browser's business, not CORP's).
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    });
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

import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** OpenAPI 3 generated from the routes' zod schemas; `/openapi.json` and interactive docs at `/docs`. */
export default fp(
  async (app) => {
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
          },
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger' },
);

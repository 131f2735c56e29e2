import fp from 'fastify-plugin';
import sjson from 'secure-json-parse';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body exactly as parsed, before validation fills defaults; kept as the run's document. */
    document?: unknown;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies are decoded strictly: invalid UTF-8 is refused instead of silently turned into
 * U+FFFD (which would store something other than what the runner measured), and `__proto__`
 * keys are refused (prototype poisoning).
 */
export default fp(
  async (app) => {
    // Only JSON is accepted; every other type (Fastify's text/plain parser too) is a 415.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(/^application\/(?:[\w.+-]+\+)?json$/, { parseAs: 'buffer' }, (request, body: Buffer, done) => {
      let text: string;
      try {
        text = UTF8.decode(body);
      } catch {
        done(new ApiError('bad-request', 'the body is not valid UTF-8', [{ path: '/', message: 'invalid UTF-8' }]), undefined);
        return;
      }
      if (text.trim() === '') {
        done(new ApiError('bad-request', 'the request body is empty; send a JSON document', [{ path: '/', message: 'required' }]), undefined);
        return;
      }
      try {
        const value: unknown = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
        request.document = value;
        done(null, value);
      } catch (e) {
        const why = e instanceof RangeError ? 'nested too deeply' : e instanceof Error ? e.message : 'invalid JSON';
        done(new ApiError('bad-request', `the body is not valid JSON: ${why}`, [{ path: '/', message: why }]), undefined);
      }
    });
  },
  { name: 'json-body' },
);

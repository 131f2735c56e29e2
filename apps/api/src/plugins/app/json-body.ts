import fp from 'fastify-plugin';
import sjson from 'secure-json-parse';
import { ApiError } from '../../problem.ts';
import { repeatedKey } from './repeated-keys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body exactly as parsed, before validation fills defaults; kept as the run's document. */
    document?: unknown;
    /** The JSON body's text as received (valid UTF-8 and JSON): stored as the run's document without a second JSON.stringify. */
    documentText?: string;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies are decoded strictly: invalid UTF-8 is refused instead of silently turned into
 * U+FFFD (which would store something other than what the runner measured), and `__proto__`
 * keys are refused (prototype poisoning), and so is a key repeated in one object (the text stored
 * must be the document validated).
 */
export default fp(
  async (app) => {
    // A compressed body would be parsed as if it were plain JSON: refuse what is not decoded here.
    app.addHook('onRequest', async (request) => {
      const encoding = request.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        throw new ApiError(
          'unsupported-media-type',
          `Content-Encoding ${encoding.slice(0, 50)} is not supported; send the body uncompressed`,
          [{ path: 'headers:/content-encoding', message: 'unsupported' }],
        );
      }
    });
    // Only JSON is accepted; every other type (Fastify's text/plain parser too) is a 415.
    // `; charset=utf-8` (what many clients send) is fine; another charset is not what we decode.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i,
      { parseAs: 'buffer' },
      (request, body: Buffer, done) => {
        const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers['content-type'] ?? '')?.[1];
        if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
          done(
            new ApiError('unsupported-media-type', `charset ${charset.slice(0, 50)} is not supported; send UTF-8`, [
              { path: 'headers:/content-type', message: 'unsupported charset' },
            ]),
            undefined,
          );
          return;
        }
        let text: string;
        try {
          text = UTF8.decode(body);
        } catch {
          done(
            new ApiError('bad-request', 'the body is not valid UTF-8', [{ path: '/', message: 'invalid UTF-8' }]),
            undefined,
          );
          return;
        }
        if (text.trim() === '') {
          done(
            new ApiError('bad-request', 'the request body is empty; send a JSON document', [
              { path: '/', message: 'required' },
            ]),
            undefined,
          );
          return;
        }
        try {
          const value: unknown = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
          const repeated = repeatedKey(text, value);
          if (repeated !== undefined) {
            done(
              new ApiError('bad-request', `the body repeats the key ${repeated.slice(0, 200)}; send each key once`, [
                { path: repeated, message: 'repeated key' },
              ]),
              undefined,
            );
            return;
          }
          request.document = value;
          request.documentText = text;
          done(null, value);
        } catch (e) {
          const why = e instanceof RangeError ? 'nested too deeply' : e instanceof Error ? e.message : 'invalid JSON';
          done(
            new ApiError('bad-request', `the body is not valid JSON: ${why}`, [{ path: '/', message: why }]),
            undefined,
          );
        }
      },
    );
  },
  { name: 'json-body' },
);

/**
 * The stored document is the body's text as received (its bytes, but for a leading byte order
 * mark, which is not part of the JSON text), and its request_hash that text's sha256: a replay of
 * the same bytes is a replay, and the bytes sent to the database are the ones hashed.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prismaOf } from '@tunelab/results-db/testing';
import { FIXTURE, clone, startApi } from './helpers.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({}, 'tl_stored_document');
});
afterAll(async () => api?.close());

const send = (body: Buffer, key: string) =>
  fetch(`${api.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body,
  });

async function stored(id: string) {
  const [row] = await prismaOf(api.db).$queryRawUnsafe<{ document: string; request_hash: string }[]>(
    'SELECT document::text AS document, request_hash FROM runs WHERE id = $1::uuid',
    id,
  );
  return row!;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the stored document', () => {
  it('is the body as sent, with its sha256 as request_hash, and the same bytes replay', async () => {
    const doc = clone(FIXTURE);
    doc.warnings = ['données, ünïcode — 测试 🚀'];
    const text = JSON.stringify(doc, null, 3);
    const res = await send(Buffer.from(text), 'doc-1');
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(await stored(id)).toEqual({ document: text, request_hash: sha256(text) });
    const again = await send(Buffer.from(text), 'doc-1');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(id);
  });

  it('drops a leading byte order mark: the text after it is stored and hashed', async () => {
    const doc = clone(FIXTURE);
    doc.startedAt = '2026-02-03T00:00:00Z';
    const text = JSON.stringify(doc);
    const res = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'doc-bom');
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(await stored(id)).toEqual({ document: text, request_hash: sha256(text) });
  });
});

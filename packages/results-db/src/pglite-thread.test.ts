import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { messages } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteThread, withWritePriority } from './pglite-thread.ts';

describe('the embedded database on its own thread', () => {
  let db: PgliteThread;
  beforeAll(async () => {
    db = await PgliteThread.create('memory://');
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, note text, amount numeric, at timestamptz)');
  });
  afterAll(async () => db?.close());

  it('answers queries with PGlite’s parsed values, and runs the caller’s parsers on the types they name', async () => {
    await db.query('INSERT INTO t VALUES ($1, $2, $3, $4)', [1, 'one', '12.50', new Date('2026-11-29T12:00:00Z')]);
    const plain = await db.query<{ id: number; note: string; at: Date }>(
      'SELECT id, note, at FROM t WHERE id = $1',
      [1],
    );
    expect(plain.rows).toEqual([{ id: 1, note: 'one', at: new Date('2026-11-29T12:00:00Z') }]);
    expect(plain.fields.map((f) => f.name)).toEqual(['id', 'note', 'at']);
    // As pglite-prisma-adapter asks: rows as arrays, numeric (1700) through its own parser.
    const arrays = await db.query<unknown[]>('SELECT id, amount FROM t', [], {
      rowMode: 'array',
      parsers: { 1700: (x: string) => `parsed ${x}` },
    });
    expect(arrays.rows).toEqual([[1, 'parsed 12.50']]);
  });

  it('gives back a failed statement as PGlite’s DatabaseError with its SQLSTATE, and goes on working', async () => {
    const err = await db.query('INSERT INTO t (id) VALUES (1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(messages.DatabaseError);
    expect(err).toMatchObject({ code: '23505', constraint: 't_pkey' });
    expect((await db.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
  });

  it('commits a transaction whose callback returns, rolls back one that throws or calls rollback', async () => {
    const value = await db.transaction(async (tx) => {
      await tx.sql`INSERT INTO t (id) VALUES (${2})`;
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]!.n;
    });
    expect(value).toBe(2);
    const thrown = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (3)');
        throw new Error('the caller changed its mind');
      })
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ message: 'the caller changed its mind' });
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (4)');
      await tx.rollback();
    });
    // A statement failing inside a transaction fails it as a whole.
    const failed = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (5)');
        await tx.query('INSERT INTO t (id) VALUES (1)');
      })
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: '23505' });
    expect((await db.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('runs queued work of a write (withWritePriority) before reads queued ahead of it', async () => {
    const order: string[] = [];
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The transaction holds the database: everything below queues until it ends.
    const held = db.transaction(async () => {
      started();
      await released;
    });
    await holding;
    const queued = [
      db.query('SELECT 1').then(() => order.push('read 1')),
      db.query('SELECT 2').then(() => order.push('read 2')),
      withWritePriority(() => db.query('SELECT 3')).then(() => order.push('write')),
      db.query('SELECT 4').then(() => order.push('read 3')),
    ];
    // The four requests are posted now, before the transaction's end (messages keep their order):
    // the worker has all four queued when the transaction lets go.
    release();
    await held;
    await Promise.all(queued);
    expect(order).toEqual(['write', 'read 1', 'read 2', 'read 3']);
  });

  it('delivers NOTIFY to a listener until it unlistens', async () => {
    const heard: string[] = [];
    const unlisten = await db.listen('ch', (payload) => heard.push(payload));
    await db.query("SELECT pg_notify('ch', 'first')");
    await unlisten();
    await db.query("SELECT pg_notify('ch', 'second')");
    await db.query('SELECT 1');
    expect(heard).toEqual(['first']);
  });

  it('keeps a directory’s data across a close and a reopen, and refuses work once closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tunelab-pglite-thread-'));
    try {
      const first = await PgliteThread.create(dir);
      await first.exec('CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)');
      await first.close();
      await expect(first.query('SELECT 1')).rejects.toThrow('the embedded database is closed');
      const again = await PgliteThread.create(dir);
      expect((await again.query('SELECT x FROM kept')).rows).toEqual([{ x: 7 }]);
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A statement whose result (200 MB of text) cannot fit a thread limited to a 48 MB heap. */
const TOO_BIG = "SELECT repeat('x', 1000000) AS x FROM generate_series(1, 200)";

describe('the embedded database’s thread ending', () => {
  it('fails the pending and every later call with why, and tells the owner once; a close tells nothing', async () => {
    const exits: Error[] = [];
    const db = await PgliteThread.create('memory://', {
      resourceLimits: { maxOldGenerationSizeMb: 48 },
      onExit: (err) => exits.push(err),
    });
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    const err = (await db.query(TOO_BIG).then(
      () => new Error('the query returned'),
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toMatch(/^the embedded database's thread exited \(code 1\): .*memory limit/);
    expect(exits).toEqual([err]);
    await expect(db.query('SELECT 1')).rejects.toBe(err);
    await db.close();
    expect(exits).toHaveLength(1);

    const closed: Error[] = [];
    const other = await PgliteThread.create('memory://', { onExit: (e) => closed.push(e) });
    await other.close();
    expect(closed).toEqual([]);
  });

  it('ends the process by default, as a lost lock does, so that a supervisor starts it again', async () => {
    const index = fileURLToPath(new URL('./index.ts', import.meta.url));
    const testing = fileURLToPath(new URL('./testing.ts', import.meta.url));
    const script = `
      import { openResultsDb } from ${JSON.stringify(index)};
      import { prismaOf } from ${JSON.stringify(testing)};
      const db = await openResultsDb(undefined, { dataDir: 'memory://', pgliteThreadLimits: { maxOldGenerationSizeMb: 48 } });
      console.log('opened');
      await prismaOf(db).$queryRawUnsafe(${JSON.stringify(TOO_BIG)}).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5000));
      console.log('still running');`;
    const dir = await mkdtemp(join(tmpdir(), 'tunelab-thread-exit-'));
    let out = '';
    let code: number | null;
    try {
      await writeFile(join(dir, 'open-and-overflow.mjs'), script);
      const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'open-and-overflow.mjs')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(out).toContain('opened');
    expect(out).not.toContain('still running');
    expect(out).toMatch(/the embedded database's thread exited \(code 1\)/);
    expect(code).not.toBe(0);
  }, 60_000);
});

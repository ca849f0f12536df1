import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { FifoLock } from '../src/db/sqlite-driver.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('the SQLite connection lock', () => {
  it('hands the connection to the longest waiter, never to a caller that comes later', async () => {
    const lock = new FifoLock();
    const order: string[] = [];
    await lock.acquire();
    const first = lock.acquire().then(() => order.push('first waiter'));
    const second = lock.acquire().then(() => order.push('second waiter'));
    // The moment the holder lets go, a newcomer asks: under Kysely's own mutex it took the lock here, ahead of
    // both waiters, and under load some requests were overtaken again and again for seconds.
    lock.release();
    const late = lock.acquire().then(() => order.push('newcomer'));
    await first;
    expect(lock.waiting).toBe(2);
    lock.release();
    await second;
    lock.release();
    await late;
    expect(order).toEqual(['first waiter', 'second waiter', 'newcomer']);
    lock.release();
    // Free again: the next caller gets it at once.
    await lock.acquire();
    expect(lock.waiting).toBe(0);
  });
});

describe('the SQLite driver', () => {
  let database: Database | null = null;
  let dir = '';
  afterEach(async () => {
    await database?.close();
    database = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-driver-test-'));
    database = await openDatabase({ ...loadConfig({}), dataDir: dir, databaseUrl: null });
    await sql`create table t (id integer primary key, v text not null)`.execute(database.db);
    return database.db;
  };

  it('keeps a transaction to itself: a query sent meanwhile waits for the commit and never sees half of it', async () => {
    const db = await open();
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    const trx = db.transaction().execute(async (t) => {
      await sql`insert into t (v) values ('a')`.execute(t);
      await gate;
      await sql`insert into t (v) values ('b')`.execute(t);
    });
    await tick();
    let seen: number | null = null;
    const outside = sql<{ n: number }>`select count(*) as n from t`.execute(db).then((r) => (seen = r.rows[0]!.n));
    await tick();
    expect(seen).toBeNull();
    letGo();
    await Promise.all([trx, outside]);
    expect(seen).toBe(2);
  });

  it('rolls back, and answers each of more distinct statements than it keeps prepared', async () => {
    const db = await open();
    await expect(
      db.transaction().execute(async (t) => {
        await sql`insert into t (v) values ('gone')`.execute(t);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(db)).rows[0]!.n).toBe(0);
    // 600 texts (the cache keeps 500), each run twice: every answer belongs to its own statement.
    for (let i = 0; i < 600; i++) await sql.raw(`insert into t (v) values ('v${i}')`).execute(db);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 600; i += 7) {
        const r = await sql.raw<{ v: string }>(`select v from t where id = ${i + 1}`).execute(db);
        expect(r.rows).toEqual([{ v: `v${i}` }]);
      }
    }
    // A statement prepared before a schema change still runs after it.
    const q = () => sql<{ v: string }>`select * from t where id = ${1}`.execute(db);
    expect(Object.keys((await q()).rows[0]!)).toEqual(['id', 'v']);
    await sql`alter table t add column w integer not null default 7`.execute(db);
    expect((await q()).rows[0]).toEqual({ id: 1, v: 'v0', w: 7 });
    // Rows read as arrays and named here answer what better-sqlite3's own objects did: column order, a later
    // column of the same name winning, every SQLite type.
    const odd = await sql`select 1 as a, 2 as a, null as n, x'0102' as b, 1.5 as f, 'é' as s`.execute(db);
    expect(odd.rows).toEqual([{ a: 2, n: null, b: Buffer.from([1, 2]), f: 1.5, s: 'é' }]);
    expect(Object.keys(odd.rows[0]!)).toEqual(['a', 'n', 'b', 'f', 's']);
    // Writes report what they changed, as Kysely's own driver did.
    const u = await sql`update t set v = 'x' where id <= 3`.execute(db);
    expect(Number(u.numAffectedRows)).toBe(3);
  });
});

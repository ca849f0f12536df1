import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';

/**
 * A lock that hands itself to the longest waiter. Kysely's own SQLite mutex wakes every waiter on each release
 * and lets whoever runs first take it: under load, a request that is ready at that moment overtakes those already
 * waiting, again and again, and a few requests waited seconds (p99 2.4 s, max 8 s at 200 connections while the
 * median was 67 ms). Here a release passes the lock straight to the next in line, so each waits its turn once.
 */
export class FifoLock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    // Still held: ownership moves to the next waiter without a moment in which a newcomer could take it.
    if (next) next();
    else this.#held = false;
  }

  /** Callers queued behind the holder (for tests and diagnostics). */
  get waiting(): number {
    return this.#waiting.length;
  }
}

/** A prepared statement; a reader answers arrays, named here once (see Connection.executeQuery). */
interface Prepared {
  stmt: BetterSqlite3.Statement;
  names: string[] | null;
}

/**
 * Prepared statements by SQL text, least recently used dropped first. Preparing cost about as much as running
 * the small queries of a list request; the same few texts recur on every request.
 */
class StatementCache {
  readonly #map = new Map<string, Prepared>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly max: number,
  ) {}

  get(sql: string): Prepared {
    let prepared = this.#map.get(sql);
    if (prepared) {
      // Refresh its place in the insertion order (the Map is the LRU list).
      this.#map.delete(sql);
    } else {
      const stmt = this.db.prepare(sql);
      prepared = { stmt, names: stmt.reader ? columnNames(stmt.raw(true)) : null };
      if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value!);
    }
    this.#map.set(sql, prepared);
    return prepared;
  }

  /** After a schema change: statements re-prepare themselves, but their column names are taken anew here. */
  clear(): void {
    this.#map.clear();
  }

  get size(): number {
    return this.#map.size;
  }
}

const columnNames = (stmt: BetterSqlite3.Statement) => stmt.columns().map((c) => c.name);

const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Rows as objects keyed by column name in column order, a later column of the same name winning: what
 * better-sqlite3 answers itself, but built here from its arrays, which takes half the time (a page of 50 gallery
 * rows: 88 instead of 172 µs).
 */
function toObjects(rows: unknown[][], names: string[]): Record<string, unknown>[] {
  const out = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const obj: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) obj[names[j]!] = row[j];
    out[i] = obj;
  }
  return out;
}

class Connection implements DatabaseConnection {
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly statements: StatementCache,
  ) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.statements.get(compiled.sql);
    const { stmt } = prepared;
    const parameters = compiled.parameters as unknown[];
    if (prepared.names) {
      const rows = stmt.all(parameters) as unknown[][];
      // Another connection changed the schema under a cached statement: SQLite re-prepared it, names follow.
      if (rows.length > 0 && rows[0]!.length !== prepared.names.length) prepared.names = columnNames(stmt);
      return Promise.resolve({ rows: toObjects(rows, prepared.names) as R[] });
    }
    const { changes, lastInsertRowid } = stmt.run(parameters);
    if (SCHEMA_CHANGE.test(compiled.sql)) this.statements.clear();
    return Promise.resolve({
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    });
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiled.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    // Its own statement: a cached one cannot run again while this iterator holds it.
    for (const row of this.db.prepare(compiled.sql).iterate(compiled.parameters as unknown[])) yield { rows: [row as R] };
  }
}

/** Kysely's better-sqlite3 driver with a fair lock and a statement cache; otherwise the same behaviour. */
class LoupeSqliteDriver implements Driver {
  readonly #lock = new FifoLock();
  readonly #connection: Connection;

  constructor(private readonly db: BetterSqlite3.Database, statementCacheSize: number) {
    this.#connection = new Connection(db, new StatementCache(db, statementCacheSize));
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // SQLite has one connection: a transaction holds it across awaits, so every query waits its turn.
    await this.#lock.acquire();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.#lock.release();
  }

  async destroy(): Promise<void> {
    this.db.close();
  }
}

/** SqliteDialect (its compiler, adapter, introspector) on the driver above. */
export class LoupeSqliteDialect extends SqliteDialect {
  constructor(
    private readonly file: BetterSqlite3.Database,
    private readonly statementCacheSize = 500,
  ) {
    super({ database: file });
  }

  override createDriver(): Driver {
    return new LoupeSqliteDriver(this.file, this.statementCacheSize);
  }
}

import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, type KyselyConfig } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from './schema.js';
import { migrationProvider } from './migrations.js';
import { LoupeSqliteDialect } from './sqlite-driver.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

const INT8_OID = 20;

/**
 * SQLite file in DATA_DIR by default; PostgreSQL when DATABASE_URL is set. Migrates before returning.
 * onQuery, when given, hears the SQL of every query (tests count what a request costs).
 */
export async function openDatabase(config: Config, onQuery?: (sql: string) => void): Promise<Database> {
  const dialect: Dialect = config.databaseUrl ? 'postgres' : 'sqlite';
  const log: KyselyConfig['log'] = onQuery ? (event) => onQuery(event.query.sql) : undefined;
  const db = dialect === 'postgres' ? await postgres(config, log) : sqlite(config, log);
  const migrator = new Migrator({
    db,
    provider: migrationProvider(dialect),
    // Kysely looks for its bookkeeping tables in every schema unless told which one is ours.
    ...(dialect === 'postgres' && config.databaseSchema ? { migrationTableSchema: config.databaseSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  return { db, dialect, close: () => db.destroy() };
}

function sqlite(config: Config, log: KyselyConfig['log']): Kysely<DB> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = new BetterSqlite3(path.join(config.dataDir, 'loupe.db'));
  file.pragma('journal_mode = WAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // 64 MB page cache (default 2 MB): a 100k-image gallery's indexes stay in memory between requests.
  file.pragma('cache_size = -65536');
  return new Kysely<DB>({ dialect: new LoupeSqliteDialect(file), log });
}

async function postgres(config: Config, log: KyselyConfig['log']): Promise<Kysely<DB>> {
  // Loaded only when used: most installations run on SQLite.
  const { default: pg } = await import('pg');
  const schema = config.databaseSchema;
  if (schema) {
    const admin = new pg.Client({ connectionString: config.databaseUrl! });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: config.databaseUrl!,
    max: config.databasePoolMax,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    // Timestamps are bigint milliseconds: read them as numbers, as SQLite does.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log });
}

/** A write refused by a unique index (PostgreSQL 23505, SQLite's UNIQUE constraint): the callers map it to their "one at a time" error. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(err.message ?? '');
}

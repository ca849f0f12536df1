/**
 * On PostgreSQL every test app gets its own schema (see helper.ts). The schemas are dropped here, once all files
 * have run, and not when each app closes: Kysely's migrator lists tables across every schema, and a schema dropped
 * by one worker in the middle of that listing in another worker fails it with "schema … does not exist".
 */
export default function setup(): () => Promise<void> {
  return async () => {
    const url = process.env.DATABASE_URL;
    if (!url) return;
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "select nspname as name from pg_namespace where nspname like 't\\_%'",
      );
      for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
    } finally {
      await client.end();
    }
  };
}

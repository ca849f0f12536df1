import { loadConfigOrExit } from './config.js';
import { buildApp } from './app.js';

/** Start-up: check the environment, open the database, listen. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await buildApp(config);
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    `Loupe on ${config.publicUrl} (database: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}, mail: ${config.smtpUrl ? 'SMTP' : 'outbox'})`,
  );
}

main().catch((err: unknown) => {
  console.error('Loupe could not start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

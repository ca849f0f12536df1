import { loadConfigOrExit } from './config.js';
import { wire } from './wiring.js';

/**
 * `npm run runner`: a runner in its own process, on any host with the engine (ARCHITECTURE.md; README, "Running at
 * scale"). It shares the database (DATABASE_URL) and the blob store (S3_*) with the servers, and with REDIS_URL the
 * queue (BullMQ) and the live events; no shared file system. RUNNER_KINDS, JOB_CONCURRENCY and RUNNER_DEVICE say
 * what it takes, how many at once and where it trains. SIGTERM/SIGINT stop it cleanly: running jobs end as a
 * server shutdown ends them; a kill -9 loses nothing either, another runner takes its jobs over once their lease
 * expires.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const stamp = () => new Date().toISOString();
  const level = config.logLevel;
  const quiet = level === 'silent' || level === 'error' || level === 'fatal';
  const log = {
    info: (msg: string) => void (level === 'info' || level === 'debug' || level === 'trace' ? console.log(`${stamp()} runner ${config.runner.id}: ${msg}`) : undefined),
    warn: (msg: string) => void (quiet ? undefined : console.warn(`${stamp()} runner ${config.runner.id}: ${msg}`)),
    error: (obj: unknown, msg?: string) => console.error(`${stamp()} runner ${config.runner.id}: ${msg ?? 'error'}:`, obj instanceof Error ? (obj.stack ?? obj.message) : obj),
  };
  const wired = await wire(config, { log, runner: true });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log.info('stopping: running jobs are stopped and recorded');
    await wired.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await wired.start();
  const s3 = config.storage.s3;
  log.info(
    `taking ${config.runner.kinds.join(', ')} jobs, ${config.jobConcurrency} at once, device ${config.runner.device ?? 'auto'}${config.runner.gpus > 1 ? ` x${config.runner.gpus} (torchrun)` : ''}; ` +
      `queue ${wired.queue.kind}, events ${wired.hub.kind}, blobs ${s3 ? `S3 ${s3.bucket}` : 'files'}, database ${wired.dialect}`,
  );
}

main().catch((err: unknown) => {
  console.error('The Loupe runner could not start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN } from './helper.js';
import { freePort } from './redis-server.js';

/**
 * The real server in its own process (`node dist/main.js`, which npm test builds first), for the tests that kill it
 * with SIGKILL (crash.test.ts, agent.test.ts): no shutdown handler runs, as on a host that dies.
 */
export const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/main.js');

export const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  /** Starts the server again on the same port, data and database (after a kill). */
  restart(): ChildProcess;
  /** One API call with the user's token; the envelope as answered. */
  api<T>(method: string, url: string, body?: unknown): Promise<{ code: number; message: string; data: T }>;
  /** Resolves once /api/health answers, or throws after timeoutMs. */
  healthy(timeoutMs?: number): Promise<void>;
}

/** The server on a free port over an in-process app's data folder and database (that app closed first), with a short lease. */
export async function spawnServer(config: { dataDir: string; databaseUrl: string | null; databaseSchema?: string | null }, token: string): Promise<ServerProcess> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: config.dataDir,
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema ?? '' } : {}),
    LOUPE_ADMIN_EMAIL: ADMIN.email,
    LOUPE_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // A short lease: a restarted server takes a dead one's job over within seconds.
    JOB_LEASE_S: '3',
  };
  const start = () => spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    child: start(),
    base,
    restart: () => (server.child = start()),
    async api<T>(method: string, url: string, body?: unknown) {
      const res = await fetch(base + url, { method, headers: { 'X-Token': token, 'Content-Type': 'application/json', Language: 'en' }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as { code: number; message: string; data: T };
    },
    async healthy(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await fetch(`${base}/api/health`).catch(() => null))?.ok) {
        if (Date.now() > deadline) throw new Error(`the server at ${base} did not answer in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
  return server;
}

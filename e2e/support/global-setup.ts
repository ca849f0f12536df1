import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, PORT } from './env.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER_MAIN = path.join(ROOT, 'apps/server/dist/main.js');
/** E2E_WEB_DIR: a web build other than apps/web/dist (one built beside another run with `vite build --outDir`). */
const WEB_DIR = process.env.E2E_WEB_DIR ? path.resolve(process.env.E2E_WEB_DIR) : path.join(ROOT, 'apps/web/dist');
const WEB_INDEX = path.join(WEB_DIR, 'index.html');
const START_TIMEOUT_MS = 60_000;

function requireBuild(): void {
  const missing = [SERVER_MAIN, WEB_INDEX].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new Error(
      `The browser tests drive the built app, but ${missing.map((f) => path.relative(ROOT, f)).join(' and ')} ` +
        `${missing.length > 1 ? 'are' : 'is'} missing. Run \`npm run build\` at the repository root first ` +
        '(`npm test` does it for you).',
    );
  }
}

async function portIsFree(): Promise<boolean> {
  try {
    await fetch(`${BASE_URL}/api/health`, { signal: AbortSignal.timeout(1000) });
    return false;
  } catch {
    return true;
  }
}

async function waitForHealth(server: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '');
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`The server exited with code ${server.exitCode} before it was healthy. Its log:\n${log()}`);
    }
    try {
      const res = await fetch(`${BASE_URL}/api/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  server.kill('SIGTERM');
  throw new Error(`GET /api/health did not answer 200 within ${START_TIMEOUT_MS / 1000} s. Server log:\n${log()}`);
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the real built server on a fresh SQLite data folder and returns the teardown that stops it and removes
 * the folder. Mail goes to the server's outbox table, which the specs read through the admin API.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  requireBuild();
  if (!(await portIsFree())) {
    throw new Error(`Something already answers on ${BASE_URL}: stop it (port ${PORT} is reserved for e2e).`);
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-'));
  const logFile = path.join(dataDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  const server = spawn(process.execPath, [SERVER_MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: BASE_URL,
      DEPLOYMENT: 'cloud',
      LOUPE_ADMIN_EMAIL: ADMIN_EMAIL,
      LOUPE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // The specs sign in far more often than a person would; the default per-minute cap is for attackers.
      RATE_LIMIT_AUTH_MAX: '1000',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SMTP_URL: '',
      WEB_DIR: WEB_DIR,
    },
    stdio: ['ignore', logFd, logFd],
  });
  // If the runner dies without its teardown, the server must not outlive it and hold the port.
  process.once('exit', () => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });
  try {
    await waitForHealth(server, logFile);
  } catch (error) {
    await stop(server);
    closeSync(logFd);
    // The error already carries the server's log.
    if (!process.env.E2E_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return async () => {
    await stop(server);
    closeSync(logFd);
    if (!process.env.E2E_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`e2e: server data and log kept in ${dataDir}`);
  };
}

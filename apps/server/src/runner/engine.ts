import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** One line of the engine contract (ARCHITECTURE.md, engine/README.md). */
export type EngineEvent =
  | { event: 'phase'; phase: string }
  | { event: 'epoch'; epoch: number; epochs: number; metrics: Record<string, unknown>; eta_s?: number | null }
  | { event: 'progress'; phase: string; done: number; total: number }
  | { event: 'artifact'; kind: string; path: string }
  | { event: 'done'; summary: Record<string, unknown> }
  | { event: 'error'; code: string; message: string };

export interface EngineRun {
  child: ChildProcess;
  /** Exit code (130 = cancelled by SIGTERM, 2 = a problem the user can fix), or null when killed by a signal. */
  exited: Promise<number | null>;
  /** The last lines of stderr, for the failure reason when the engine dies without an error event. */
  tail(): string;
}

/**
 * Spawns `<command> <args>` and feeds every stdout JSON line to onEvent, in order (each handler finishes
 * before the next line is handled, so epochs are stored in sequence). Lines that are not JSON are logs.
 */
export function runEngine(command: string[], args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; onEvent: (e: EngineEvent) => Promise<void> }): EngineRun {
  const [bin, ...pre] = command;
  const child = spawn(bin!, [...pre, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(...chunk.split('\n').filter(Boolean));
    if (stderr.length > 40) stderr.splice(0, stderr.length - 40);
  });
  let chain = Promise.resolve();
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    let event: EngineEvent | null = null;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      return;
    }
    if (event && typeof event === 'object' && 'event' in event) chain = chain.then(() => opts.onEvent(event)).catch(() => undefined);
  });
  const exited = new Promise<number | null>((resolve) => {
    let code: number | null = null;
    child.on('error', (e) => {
      stderr.push(String(e));
      resolve(-1);
    });
    child.on('exit', (c) => {
      code = c;
    });
    // 'close' comes after stdout ended: every line has been read by then; wait for their handlers too.
    lines.on('close', () => void 0);
    child.on('close', () => void chain.then(() => resolve(code)));
  });
  return { child, exited, tail: () => stderr.slice(-5).join('\n') };
}

/** The engine's environment: our engine/ on PYTHONPATH, idle OpenMP threads that yield the cores, unbuffered lines. */
export function engineEnv(pythonPath: string): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: pythonPath, OMP_WAIT_POLICY: 'PASSIVE', PYTHONUNBUFFERED: '1', LOUPE_PARENT_PID: String(process.pid) };
}

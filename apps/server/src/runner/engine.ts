import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { failure, MonitorLogLines, splitFailure } from '@loupe/contracts';

/** One line of the engine contract (ARCHITECTURE.md, engine/README.md). */
export type EngineEvent =
  | { event: 'phase'; phase: string }
  | { event: 'epoch'; epoch: number; epochs: number; metrics: Record<string, unknown>; eta_s?: number | null; gpu?: EngineGpu }
  | { event: 'progress'; phase: string; done: number; total: number }
  | { event: 'artifact'; kind: string; path: string }
  | { event: 'done'; summary: Record<string, unknown> }
  | { event: 'error'; code: string; message: string };

/** The GPU an engine trains on, as its epoch events report it (engine events.py gpu_fields). */
export interface EngineGpu {
  name: string;
  util_percent?: number | null;
  memory_used_bytes?: number | null;
  memory_total_bytes?: number | null;
}

export interface EngineRun {
  child: ChildProcess;
  /** Exit code (130 = cancelled by SIGTERM, 2 = a problem the user can fix), or null when killed by a signal. */
  exited: Promise<number | null>;
  /** The last meaningful line of stderr (a traceback's exception line), paths removed: what a user may read. */
  tail(): string;
  /** The last lines of stderr as written (tracebacks, paths): for the server log only. */
  stderr(): string;
  /** The engine's last log lines (stderr and stdout lines that are not events), oldest first, as written: the monitor cuts paths. */
  logs(): string[];
  /** The GPU of the latest epoch event that named one; null = none reported (CPU). */
  gpu(): EngineGpu | null;
}

const TRACEBACK_LINE = /^(Traceback \(most recent call last\):|\s+File "|\s+\^+\s*$|\s{2,}\S|During handling of the above exception|The above exception was the direct cause)/;
// An absolute path (POSIX, or a Windows drive) after a start, space, quote, bracket, '=' or ':'; file names stay.
const ABSOLUTE_PATH = /(^|[\s'"`([=:,])((?:\/[^\s'"`)\],:;/]+){2,}\/?|[A-Za-z]:\\[^\s'"`)\],;]+)/g;

/**
 * What a user may read of an engine's message or stderr (issue 30 item 6): one line, no traceback, and every
 * absolute path cut to its last part (a file name, which the user knows). Tracebacks and paths go to the
 * server log only.
 */
export function publicDetail(text: string, max = 300, pick: 'first' | 'last' = 'first'): string {
  const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() && !TRACEBACK_LINE.test(l));
  // A traceback ends with its exception ("TypeError: ..."), so does a stderr tail; an error event's message is its first line.
  const line = (pick === 'last' || text.includes('Traceback (most recent call last)') ? lines.at(-1) : lines[0]) ?? '';
  const clean = line.trim().replace(ABSOLUTE_PATH, (_m, pre: string, p: string) => pre + (p.split(/[\\/]/).filter(Boolean).at(-1) ?? ''));
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** One engine log line as the monitor shows it: every absolute path cut to its last part, the line kept. */
export function publicLogLine(line: string): string {
  return line.trimEnd().replace(ABSOLUTE_PATH, (_m, pre: string, p: string) => pre + (p.split(/[\\/]/).filter(Boolean).at(-1) ?? ''));
}

/**
 * Spawns `<command> <args>` and feeds every stdout JSON line to onEvent, in order (each handler finishes
 * before the next line is handled, so epochs are stored in sequence). Lines that are not JSON are logs.
 */
export function runEngine(
  command: string[],
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; onEvent: (e: EngineEvent) => Promise<void>; log?: (msg: string) => void },
): EngineRun {
  const [bin, ...pre] = command;
  const child = spawn(bin!, [...pre, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  // The monitor's ring buffer (issue 31 item 3): in memory only, dropped with the run.
  const logs: string[] = [];
  const logLine = (line: string) => {
    logs.push(line.length > 500 ? `${line.slice(0, 499)}…` : line);
    if (logs.length > MonitorLogLines) logs.splice(0, logs.length - MonitorLogLines);
  };
  let gpu: EngineGpu | null = null;
  // Chunks end anywhere: keep the unfinished line until its end arrives, so each entry is a whole line.
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    const whole = parts.filter(Boolean);
    stderr.push(...whole);
    whole.forEach(logLine);
    if (stderr.length > 40) stderr.splice(0, stderr.length - 40);
  });
  child.stderr!.on('end', () => {
    if (partial) {
      stderr.push(partial);
      logLine(partial);
    }
    partial = '';
  });
  let chain = Promise.resolve();
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    let event: EngineEvent | null = null;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      if (line.trim()) logLine(line);
      return;
    }
    if (!event || typeof event !== 'object' || !('event' in event)) return;
    if (event.event === 'epoch' && event.gpu && typeof event.gpu.name === 'string') gpu = event.gpu;
    if (event.event === 'error' && typeof event.message === 'string') {
      // The engine's own words as written go to the log; what is stored and shown loses paths and tracebacks.
      if (event.code !== 'cancelled') opts.log?.(`engine error [${event.code}] ${event.message}`);
      event = { ...event, message: publicDetail(event.message) };
    }
    const e = event;
    chain = chain.then(() => opts.onEvent(e)).catch(() => undefined);
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
    child.on('close', () => {
      if (code !== 0 && code !== 130) opts.log?.(`engine ${args[0] ?? ''} exited ${code ?? 'by a signal'} in ${opts.cwd}:\n${stderr.join('\n')}`);
      void chain.then(() => resolve(code));
    });
  });
  return { child, exited, tail: () => publicDetail(stderr.join('\n'), 300, 'last'), stderr: () => stderr.join('\n'), logs: () => [...logs], gpu: () => gpu };
}

/** A stored failure reason (contracts failures.ts) as a user may read it: its code kept, its detail through publicDetail. */
export function publicFailure(stored: string): string {
  const { code, detail } = splitFailure(stored);
  return code ? failure(code, publicDetail(detail)) : publicDetail(stored);
}

/** The engine's environment: our engine/ on PYTHONPATH, idle OpenMP threads that yield the cores, unbuffered lines. */
export function engineEnv(pythonPath: string): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: pythonPath, OMP_WAIT_POLICY: 'PASSIVE', PYTHONUNBUFFERED: '1', LOUPE_PARENT_PID: String(process.pid) };
}

/** The device the runner names (RUNNER_DEVICE) as a job.json key; none = the engine's own choice. */
export function deviceSpec(deps: { config: { runner: { device: string | null } } }): { device?: string } {
  return deps.config.runner.device ? { device: deps.config.runner.device } : {};
}

/**
 * The command a training runs: the engine itself, or with RUNNER_GPUS above 1 the engine under torchrun, one
 * process per GPU training one job with DistributedDataParallel (engine/HARDWARE.md, GPU runners). The engine's
 * own launcher (loupe_engine.torchrun) starts Debian's torch 1.13 torchrun under Python 3.11; `--standalone` gives
 * each job its own rendezvous port, so two jobs on one host do not meet.
 */
export function trainCommand(deps: { config: { engine: { command: string[] }; runner: { gpus: number } } }): string[] {
  const { command } = deps.config.engine;
  const gpus = deps.config.runner.gpus;
  if (gpus <= 1) return command;
  // ['/usr/bin/python3', '-m', 'loupe_engine'] → python3 -m loupe_engine.torchrun … -m loupe_engine
  const [python, ...rest] = command;
  return [python!, '-m', 'loupe_engine.torchrun', '--standalone', `--nproc_per_node=${gpus}`, ...rest];
}

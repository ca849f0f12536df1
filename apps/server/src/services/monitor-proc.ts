import fs from 'node:fs';
import os from 'node:os';

/** CPU use and resident memory of one process, as the monitor shows them. */
export interface ProcFigures {
  /** Share of one core since the previous sample (100 = one core busy); null on the first sample. */
  cpuPercent: number | null;
  rssBytes: number | null;
}

interface Ticks {
  proc: number;
  total: number;
}

/** utime + stime of a process in clock ticks (/proc/<pid>/stat fields 14 and 15); null when it is gone or not Linux. */
async function procTicks(pid: number): Promise<number | null> {
  try {
    const stat = await fs.promises.readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the fields after it start past the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : null;
  } catch {
    return null;
  }
}

/** All CPUs' ticks together (/proc/stat's first line): the same unit as procTicks, so no clock-tick rate is needed. */
async function totalTicks(): Promise<number | null> {
  try {
    const line = (await fs.promises.readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
    if (!line.startsWith('cpu ')) return null;
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const sum = line.trim().split(/\s+/).slice(1, 9).map(Number).reduce((a, b) => a + b, 0);
    return Number.isFinite(sum) ? sum : null;
  } catch {
    return null;
  }
}

/** VmRSS of /proc/<pid>/status in bytes. */
async function rssBytes(pid: number): Promise<number | null> {
  try {
    const status = await fs.promises.readFile(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples one process (the engine child the runner spawned; never a pid a user names). CPU % is the process's
 * ticks over all CPUs' ticks between two samples, times the core count: 100 = one core, 200 = two.
 */
export function procSampler(pid: number, cores = os.cpus().length || 1) {
  let prev: Ticks | null = null;
  return {
    async sample(): Promise<ProcFigures | null> {
      const [proc, total, rss] = await Promise.all([procTicks(pid), totalTicks(), rssBytes(pid)]);
      if (proc === null) return null;
      let cpuPercent: number | null = null;
      if (prev && total !== null && total > prev.total) {
        cpuPercent = Math.max(0, Math.round(((proc - prev.proc) / (total - prev.total)) * cores * 1000) / 10);
      }
      prev = total === null ? null : { proc, total };
      return { cpuPercent, rssBytes: rss };
    },
  };
}
export type ProcSampler = ReturnType<typeof procSampler>;

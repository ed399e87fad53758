/**
 * Runs a command to completion and measures wall time and peak memory. Peak RSS comes from
 * `/usr/bin/time -f %M` when present (the largest resident set of any process in the tree, as
 * the kernel reports it at exit) and, always, from polling /proc/<pid>/status of the child and
 * its descendants every 200 ms (largest VmHWM seen, and the largest sum of VmRSS over the tree).
 */
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { TrackedProcess, sleep, type Cleanup } from './util.ts';

export interface ChildMeasurement {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  wallMs: number;
  /** Best available peak RSS of the largest single process, in bytes. */
  peakRssBytes: number | null;
  peakRssSource: string;
  /** Largest VmHWM seen while polling, in bytes. */
  polledPeakRssBytes: number | null;
  /** Largest sum of VmRSS over the whole process tree at one poll, in bytes. */
  polledPeakTreeRssBytes: number | null;
  /** `/usr/bin/time -f %M`, in bytes, when available. */
  timePeakRssBytes: number | null;
  /**
   * CPU time (user + system) of the child and of the descendants it waited for, in ms, from
   * `/usr/bin/time -f %U %S` when available: on a shared machine the work done, which other
   * load does not stretch the way it stretches wall time.
   */
  cpuMs: number | null;
  outputTail: string;
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    try {
      for (const tid of readdirTasks(p)) {
        const kids = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim();
        if (kids) for (const k of kids.split(/\s+/)) stack.push(Number(k));
      }
    } catch {
      // process gone, or no /proc
    }
  }
  return out;
}

/** Thread ids of `pid`: children are listed per thread in /proc/<pid>/task/<tid>/children. */
function readdirTasks(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export async function measureChild(
  label: string,
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number; cleanup: Cleanup; scratchDir: string },
): Promise<ChildMeasurement> {
  const useTime = existsSync('/usr/bin/time');
  const timeFile = path.join(options.scratchDir, `time-${process.pid}-${Date.now()}.txt`);
  const [cmd, argv] = useTime
    ? ['/usr/bin/time', ['-f', '%M %U %S', '-o', timeFile, command, ...args]]
    : [command, args];
  const started = process.hrtime.bigint();
  const proc = new TrackedProcess(label, cmd, argv as string[], { cwd: options.cwd, env: options.env ?? process.env });
  options.cleanup.track(proc);
  let polledHwmKb = 0;
  let polledTreeKb = 0;
  let timedOut = false;
  const deadline = Date.now() + options.timeoutMs;
  while (proc.running) {
    if (proc.pid !== undefined) {
      let sum = 0;
      for (const p of descendants(proc.pid)) {
        polledHwmKb = Math.max(polledHwmKb, statusKb(p, 'VmHWM') ?? 0);
        sum += statusKb(p, 'VmRSS') ?? 0;
      }
      polledTreeKb = Math.max(polledTreeKb, sum);
    }
    if (Date.now() > deadline) {
      timedOut = true;
      await proc.stop(2000);
      break;
    }
    await Promise.race([proc.exited, sleep(200)]);
  }
  await proc.exited;
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  let timeKb: number | null = null;
  let cpuMs: number | null = null;
  if (useTime) {
    try {
      const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
      const [kb, user, sys] = lines[lines.length - 1]!.trim().split(/\s+/).map(Number);
      timeKb = kb !== undefined && Number.isFinite(kb) && kb > 0 ? kb : null;
      cpuMs =
        user !== undefined && sys !== undefined && Number.isFinite(user) && Number.isFinite(sys)
          ? Math.round((user + sys) * 1000)
          : null;
    } catch {
      timeKb = null;
    }
    rmSync(timeFile, { force: true });
  }
  const polled = polledHwmKb > 0 ? polledHwmKb * 1024 : null;
  const timed = timeKb !== null ? timeKb * 1024 : null;
  const peak = Math.max(polled ?? 0, timed ?? 0) || null;
  return {
    exitCode: proc.exitCode,
    signal: proc.exitSignal,
    timedOut,
    wallMs: Math.round(wallMs),
    peakRssBytes: peak,
    peakRssSource: timed !== null && timed >= (polled ?? 0) ? '/usr/bin/time %M' : '/proc VmHWM poll',
    polledPeakRssBytes: polled,
    polledPeakTreeRssBytes: polledTreeKb > 0 ? polledTreeKb * 1024 : null,
    timePeakRssBytes: timed,
    cpuMs,
    outputTail: proc.tail(3000),
  };
}

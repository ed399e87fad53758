/**
 * Run a command without starting it from this process. Starting a child copies the starting
 * process's memory map and waits for the exec, on the calling thread: 10-25 ms for a process of
 * 1-2 GB on a quiet machine and up to about 60 ms per start on a busy one, measured in the
 * server at 100,000 works, where an apply starts dozens of git commands and the stall probe saw
 * requests held for 200-320 ms by a few starts in a row (bench/README.md). So the commands are
 * started by a small child process (api/process/spawner-child.ts), started once, lazily; its
 * starts cost about a millisecond and never hold this thread.
 *
 * It keeps this process alive only while a command runs, and ends once this process is gone and
 * the commands it started have ended.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SPAWNER_CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'spawner-child.ts');

export interface SpawnRequest {
  id: number;
  file: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  stdoutLimit: number;
  stderrLimit: number;
  lowPriority: boolean;
}

export interface SpawnReply {
  id: number;
  /** Why the command could not start (ENOENT, ...); null when it ran. */
  error: string | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** The command was stopped because its output passed `stdoutLimit`. */
  cut: boolean;
}

/** The output kept of a command unless it asks otherwise (stdout: as `execFile`'s `maxBuffer` was). */
const DEFAULT_STDOUT_LIMIT = 64 * 1024 * 1024;
const DEFAULT_STDERR_LIMIT = 64 * 1024;

export interface RunOptions {
  cwd?: string;
  /** The environment (default: the spawner's, which is this process's as it was when the spawner started). */
  env?: NodeJS.ProcessEnv;
  /** Bytes for stdin (none: stdin is closed). */
  input?: string | Buffer;
  /** Stop the command once its stdout passes this many bytes (`cut` in the result). Default 64 MiB. */
  stdoutLimit?: number;
  /** Keep at most this much of stderr. Default 64 KiB. */
  stderrLimit?: number;
  /** Run at the lowest CPU priority (nice 19). */
  lowPriority?: boolean;
  /** Stop the command (SIGTERM) when this aborts. */
  signal?: AbortSignal;
}

export type RunResult = Omit<SpawnReply, 'id' | 'error'>;

/** A command that could not start, or (from `runChecked`) ended other than with exit 0. */
export class CommandError extends Error {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  constructor(message: string, code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string) {
    super(message);
    this.code = code;
    this.signal = signal;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

let check: ((file: string) => void) | null = null;

/**
 * A check every command passes before it is handed to the spawner process (it throws to refuse).
 * The test suite's fast tier sets one (test/setup/fast-tier-guard.ts): the commands started here
 * do not go through this process's child_process functions, which that guard wraps.
 */
export function setCommandCheck(fn: ((file: string) => void) | null): void {
  check = fn;
}

let child: ChildProcess | null = null;
let nextId = 1;
/** The commands in flight, with the spawner process each was handed to. */
const pending = new Map<number, { proc: ChildProcess; resolve: (r: SpawnReply) => void; reject: (e: Error) => void }>();

function spawner(): ChildProcess {
  if (child?.connected) return child;
  const started = fork(SPAWNER_CHILD, [], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  started.on('message', (message: SpawnReply) => {
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    settle();
    p.resolve(message);
  });
  const lost = (why: string) => {
    if (child === started) child = null;
    // Commands it ran are lost with it: their callers get an error, the next call starts a new one
    // (commands handed to that one are not this one's to fail).
    for (const [id, p] of pending) {
      if (p.proc !== started) continue;
      pending.delete(id);
      p.reject(new CommandError(`the spawner process ${why}`, null, null, '', ''));
    }
    settle();
  };
  started.on('exit', (code, signal) => lost(`ended (${signal ?? `exit ${code}`})`));
  started.on('error', (err) => lost(`failed: ${err.message}`));
  child = started;
  settle();
  return started;
}

/** The spawner process's pid while it runs (null before the first command, or after it ended). */
export function spawnerPid(): number | null {
  return child?.connected ? (child.pid ?? null) : null;
}

/** Keep this process alive while a command runs, and only then. */
function settle(): void {
  if (!child) return;
  if (pending.size > 0) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/** Run `file` with `args` from the spawner process; resolves with its exit and output whatever the exit. */
export function runCommand(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  try {
    check?.(file);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  if (options.signal?.aborted)
    return Promise.reject(new CommandError(`${file} was stopped before it started`, null, null, '', ''));
  const id = nextId++;
  const request: SpawnRequest = {
    id,
    file,
    args: [...args],
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.input !== undefined ? { input: options.input } : {}),
    stdoutLimit: options.stdoutLimit ?? DEFAULT_STDOUT_LIMIT,
    stderrLimit: options.stderrLimit ?? DEFAULT_STDERR_LIMIT,
    lowPriority: options.lowPriority ?? false,
  };
  return new Promise<SpawnReply>((resolve, reject) => {
    const proc = spawner();
    const onAbort = () => proc.connected && proc.send({ kill: id, signal: 'SIGTERM' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => options.signal?.removeEventListener('abort', onAbort);
    pending.set(id, {
      proc,
      resolve: (r) => (done(), resolve(r)),
      reject: (e) => (done(), reject(e)),
    });
    settle();
    proc.send(request, (err) => {
      if (!err || !pending.delete(id)) return;
      done();
      settle();
      reject(new CommandError(`could not hand ${file} to the spawner process: ${err.message}`, null, null, '', ''));
    });
  }).then((r) => {
    if (r.error !== null) throw new CommandError(`${file}: ${r.error}`, null, null, '', '');
    // A Buffer crosses the channel as a Uint8Array: give callers a Buffer again.
    return {
      code: r.code,
      signal: r.signal,
      stdout: Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength),
      stderr: r.stderr,
      cut: r.cut,
    };
  });
}

/**
 * `runCommand` that resolves with stdout only on exit 0 (as `execFile` does) and rejects otherwise,
 * or when the output passed its limit, with a CommandError carrying the exit, stdout and stderr.
 */
export async function runChecked(file: string, args: readonly string[], options: RunOptions = {}): Promise<Buffer> {
  const r = await runCommand(file, args, options);
  if (r.code === 0 && !r.cut) return r.stdout;
  const why = r.cut
    ? `its output passed ${options.stdoutLimit ?? DEFAULT_STDOUT_LIMIT} bytes`
    : r.signal
      ? `stopped by ${r.signal}`
      : `exit ${r.code}`;
  throw new CommandError(
    `Command failed (${why}): ${file} ${args.join(' ').slice(0, 500)}\n${r.stderr.trim()}`,
    r.code,
    r.signal,
    r.stdout.toString('utf8'),
    r.stderr,
  );
}

/**
 * The spawner process (api/process/spawner.ts): runs the commands its parent asks for and answers
 * with their exit and output. It is small, so starting a command here costs about a millisecond,
 * where the server's own process (hundreds of MB to GB) holds its thread for 10-60 ms per start.
 * It ends once its parent is gone and the commands it started have ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import type { SpawnReply, SpawnRequest } from './spawner.ts';

const running = new Map<number, ChildProcess>();

function reply(message: SpawnReply): void {
  // With a callback, a parent gone between the check and the write is an error passed to it (and
  // ignored: nobody is left to answer), not an 'error' event that ends this process mid-command.
  if (process.connected) process.send?.(message, () => undefined);
}

function start(req: SpawnRequest): void {
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, {
      cwd: req.cwd,
      env: req.env,
      stdio: [req.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    reply({
      id: req.id,
      error: (err as Error).message,
      code: null,
      signal: null,
      stdout: Buffer.alloc(0),
      stderr: '',
      cut: false,
    });
    return;
  }
  running.set(req.id, child);
  if (req.lowPriority && child.pid !== undefined) {
    try {
      setPriority(child.pid, 19);
    } catch {
      // Not permitted here: it runs at normal priority.
    }
  }
  const out: Buffer[] = [];
  let size = 0;
  let cut = false;
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    if (cut) return;
    out.push(chunk);
    size += chunk.length;
    if (size > req.stdoutLimit) {
      cut = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < req.stderrLimit) stderr += String(chunk);
  });
  let failed: string | null = null;
  let answered = false;
  const answer = (code: number | null, signal: NodeJS.Signals | null) => {
    if (answered) return;
    answered = true;
    running.delete(req.id);
    reply({
      id: req.id,
      error: failed,
      code,
      signal,
      stdout: Buffer.concat(out),
      stderr: stderr.slice(0, req.stderrLimit),
      cut,
    });
  };
  child.on('error', (err) => {
    failed = err.message;
    // It never started (no such command): no 'close' may follow.
    if (child.pid === undefined) answer(null, null);
  });
  child.on('close', (code, signal) => answer(code, signal));
  if (req.input !== undefined) {
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(req.input);
  }
}

process.on('message', (message: SpawnRequest | { kill: number; signal: NodeJS.Signals }) => {
  if ('kill' in message) running.get(message.kill)?.kill(message.signal);
  else start(message);
});
// The parent went (a stop, or kill -9): the commands still running end as they would have as its
// own children (a git command finishes its write), and this process ends with the last of them.

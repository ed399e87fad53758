/**
 * Debian's redis-server on a free loopback port, for one test file: no persistence, its files in
 * the test's own folder, stopped by `stop()`. The shared state of several processes
 * (api/session/state-backend.ts) is tested against it; installed by scripts/ensure-test-tools.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './process.ts';

export interface TestRedis {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** PING over a raw socket; true on +PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('data', (d) => {
      socket.destroy();
      resolve(String(d).startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !(await pings(port)); i++) {
    if (i > 100 || child.exitCode !== null)
      throw new Error(`redis-server did not start (install Debian's redis-server: npm test does): ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

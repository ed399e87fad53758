/**
 * The fast tier's promise, enforced: a fast test that starts a build, a server or CLI process, a
 * browser or a Debian tool fails at once, naming the command, instead of quietly making the inner
 * loop slow. Short-lived tools the code under test needs may run: git, openssl, mkdir, and env(1), which
 * the content proposal uses to add its index file to git's environment. Rename a test that needs
 * more to `*.slow.test.ts` (vitest.config.ts).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

// sh: exec() and execSync() run their command through it (the command itself is checked first).
const ALLOWED = new Set(['git', 'openssl', 'env', 'mkdir', 'sh']);

function refuse(command: string): void {
  if (ALLOWED.has(path.basename(command))) return;
  throw new Error(
    `a fast test may not start "${command}" (a build, process, browser or tool): name the file *.slow.test.ts (vitest.config.ts)`,
  );
}

type Launcher = ((...args: unknown[]) => unknown) & { [promisify.custom]?: (...args: unknown[]) => unknown };

function guard(name: keyof typeof childProcess, commandOf: (first: unknown) => string): void {
  const original = childProcess[name] as unknown as Launcher;
  const guarded: Launcher = function (this: unknown, ...args: unknown[]) {
    refuse(commandOf(args[0]));
    return original.apply(this, args);
  };
  // promisify(execFile) / promisify(exec) resolve { stdout, stderr } through this symbol.
  const custom = original[promisify.custom];
  if (custom)
    guarded[promisify.custom] = function (this: unknown, ...args: unknown[]) {
      refuse(commandOf(args[0]));
      return custom.apply(this, args);
    };
  (childProcess as unknown as Record<string, unknown>)[name] = guarded;
}

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync'] as const) guard(name, (c) => String(c));
guard('fork', () => process.execPath);
for (const name of ['exec', 'execSync'] as const) guard(name, (c) => String(c).trim().split(/\s+/)[0] ?? '');
syncBuiltinESMExports();

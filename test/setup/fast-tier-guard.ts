/**
 * The fast tier's promise, enforced: a fast test that starts a build, a server or CLI process, a
 * browser or a Debian tool fails at once, naming the command, instead of quietly making the inner
 * loop slow. Short-lived tools the code under test needs may run: git, openssl, mkdir, and env(1), which
 * the content proposal uses to add its index file to git's environment. Rename a test that needs
 * more to `*.slow.test.ts` (vitest.config.ts). Commands started through the spawner process
 * (api/process/spawner.ts, which git calls use) are checked the same way before they are sent;
 * the spawner process itself may start.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { setCommandCheck, SPAWNER_CHILD } from '../../api/process/spawner.ts';

// sh: exec() and execSync() run their command through it (the command itself is checked first).
const ALLOWED = new Set(['git', 'openssl', 'env', 'mkdir', 'sh']);

/** Refuse `command` unless it is allowed (null: the spawner process, which starts nothing unchecked). */
function refuse(command: string | null): void {
  if (command === null || ALLOWED.has(path.basename(command))) return;
  throw new Error(
    `a fast test may not start "${command}" (a build, process, browser or tool): name the file *.slow.test.ts (vitest.config.ts)`,
  );
}

type Launcher = ((...args: unknown[]) => unknown) & { [promisify.custom]?: (...args: unknown[]) => unknown };

function guard(name: keyof typeof childProcess, commandOf: (first: unknown) => string | null): void {
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
guard('fork', (module) => (path.resolve(String(module)) === SPAWNER_CHILD ? null : process.execPath));
setCommandCheck(refuse);
for (const name of ['exec', 'execSync'] as const) guard(name, (c) => String(c).trim().split(/\s+/)[0] ?? '');
syncBuiltinESMExports();

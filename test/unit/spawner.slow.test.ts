/**
 * The spawner (api/process/spawner.ts): commands run from a small child process, with their
 * exit, output, limits and stops as a direct start would give, and the caller's process is kept
 * alive only while a command runs.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandError, runChecked, runCommand, spawnerPid } from '../../api/process/spawner.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

describe('runCommand', () => {
  it('gives stdin to the command and answers its exit, stdout and stderr', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10]);
    const echoed = await runCommand('cat', [], { input: bytes });
    expect(echoed).toMatchObject({ code: 0, signal: null, cut: false });
    expect(Buffer.isBuffer(echoed.stdout)).toBe(true);
    expect(echoed.stdout.equals(bytes)).toBe(true);
    const failed = await runCommand('sh', ['-c', 'echo out; echo why >&2; exit 3']);
    expect(failed).toMatchObject({ code: 3, stderr: 'why\n', cut: false });
    expect(failed.stdout.toString()).toBe('out\n');
  });

  it('runs in the given folder with the given environment', async () => {
    const r = await runCommand('sh', ['-c', 'pwd; echo "$SPAWNER_TEST"'], {
      cwd: '/tmp',
      env: { ...process.env, SPAWNER_TEST: 'value 1' },
    });
    expect(r.stdout.toString()).toBe(`${path.resolve('/tmp')}\nvalue 1\n`);
  });

  it('stops a command whose output passes the limit, and one whose signal aborts', async () => {
    const endless = await runCommand('yes', [], { stdoutLimit: 100_000 });
    expect(endless.cut).toBe(true);
    expect(endless.stdout.length).toBeGreaterThan(100_000);
    const stop = new AbortController();
    const sleeping = runCommand('sleep', ['30'], { signal: stop.signal });
    setTimeout(() => stop.abort(), 100);
    const started = Date.now();
    expect(await sleeping).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('rejects a command that cannot start, and runChecked rejects a non-zero exit with its output', async () => {
    await expect(runCommand('no-such-command-pdma', [])).rejects.toThrow(/no-such-command-pdma.*ENOENT/);
    const err = await runChecked('sh', ['-c', 'echo partial; echo broken >&2; exit 5']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect(err).toMatchObject({ code: 5, stdout: 'partial\n', stderr: 'broken\n' });
    expect((err as Error).message).toMatch(/exit 5.*\n.*broken/s);
    expect((await runChecked('printf', ['%s', 'ok'])).toString()).toBe('ok');
  });

  it('runs many commands at once, each answered with its own output', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => runChecked('echo', [`n${i}`])));
    expect(results.map((b) => b.toString())).toEqual(Array.from({ length: 40 }, (_, i) => `n${i}\n`));
  });

  it('fails the commands in flight when the spawner process dies, and starts a new one for the next', async () => {
    await runChecked('true', []);
    const pid = spawnerPid();
    expect(pid).toBeGreaterThan(0);
    const inFlight = runCommand('sleep', ['30']).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid!, 'SIGKILL');
    // Handed over at once, before or after this process hears of the death: answered either way.
    const next = runChecked('echo', ['again']).catch((e: unknown) => e);
    const lost = await inFlight;
    expect(lost).toBeInstanceOf(CommandError);
    expect((lost as Error).message).toMatch(/spawner process/);
    const retried = (await next) as Buffer | Error;
    // The call made in the moment of the death may be lost with it; the one after never is.
    if (retried instanceof Error) expect(retried.message).toMatch(/spawner process/);
    else expect(retried.toString()).toBe('again\n');
    expect((await runChecked('echo', ['after'])).toString()).toBe('after\n');
    expect(spawnerPid()).not.toBe(pid);
  });

  it('ends once its parent is gone and what it started has ended', async () => {
    const script = `
      import { runCommand, spawnerPid } from ${JSON.stringify(path.join(PROJECT_ROOT, 'api/process/spawner.ts'))};
      void runCommand('sleep', ['1']);
      setTimeout(() => { process.stdout.write(String(spawnerPid())); process.exit(0); }, 300);
    `;
    const pid = Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }));
    expect(pid).toBeGreaterThan(0);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // Its command (sleep 1) still runs right after the parent went; then it ends.
    expect(alive()).toBe(true);
    const deadline = Date.now() + 15_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
  });

  it('does not keep a script alive once its commands are done', () => {
    const script = `
      import { runChecked } from ${JSON.stringify(path.join(PROJECT_ROOT, 'api/process/spawner.ts'))};
      const out = await runChecked('echo', ['done']);
      process.stdout.write(out);
    `;
    const started = Date.now();
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    expect(out.toString()).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

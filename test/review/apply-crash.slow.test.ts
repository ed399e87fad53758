/**
 * "Nothing acknowledged is ever lost" for applies that answer at once: a real
 * `npm start` process acknowledges an apply (202, "applying"), is SIGKILLed together with its
 * build after the merge and before the item became visible, and a restart on the same data
 * folder finishes it: the start-up build serves main, the resumed apply records it `visible`,
 * and the service logs that it resumed it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  applyingCorrection,
  applyOutcome,
  fetchCaller,
  mergedOnMain as mergedOnMainOf,
} from '../helpers/corrections.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { killTree, type Started, ServiceRun, dataOf } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-apply-crash-');
const dataDir = serviceRun.dataDir;
const KEY = 'admin-apply-crash-1';
const ENV = { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: KEY };
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
let running: Started | null = null;
afterAll(() => serviceRun.dispose());

const mergedOnMain = (code: string) => mergedOnMainOf(path.join(dataDir, 'content'), code);

describe('SIGKILL during an apply that answered at once', () => {
  it('resumes on restart: the change becomes visible and the tracking record says when', async () => {
    running = await serviceRun.start(ENV);
    const url = running.url;
    const call = fetchCaller(url);
    const { code, apply } = await applyingCorrection(call, KEY, {
      workSlug: 'bach-prelude-in-c-bwv-846',
      fieldName: 'year',
      currentValue: '1722',
      proposedValue: '1722 (autograph dated 1722)',
      rationale: 'Autograph title page.',
    });
    const admin = `${url}/api/v1/admin/correction-reports/${code}`;
    expect(apply.data.apply.state).toBe('applying');

    // Wait for the merge (the rebuild of the sample catalog then takes seconds), then kill the
    // server and its build at once, as a power cut would.
    const deadline = Date.now() + 60_000;
    while (!mergedOnMain(code)) {
      if (Date.now() > deadline)
        throw new Error(
          `no merge of ${code} within 60 s: ${JSON.stringify(await dataOf(await fetch(admin, { headers: auth })))}\n${running.output()}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = await dataOf(await fetch(admin, { headers: auth }));
    expect(before.apply.state).toBe('applying');
    killTree(running.child.pid!);
    await running.stop('SIGKILL');
    expect(existsSync(path.join(dataDir, 'state', 'applying', `${code}.json`))).toBe(true);

    running = await serviceRun.start(ENV, 240_000);
    const restarted = running;
    const item = await applyOutcome(fetchCaller(restarted.url), KEY, code, 120_000, restarted.output);
    expect(item.status, `${JSON.stringify(item)}\n${restarted.output()}`).toBe('applied');
    expect(item.apply.state).toBe('visible');
    expect(item.apply.requestedAtUtc).toBe(before.apply.requestedAtUtc);
    expect(Date.parse(item.apply.visibleAtUtc)).toBeGreaterThan(Date.parse(item.apply.requestedAtUtc));
    const tracking = await dataOf(await fetch(`${restarted.url}/api/v1/correction-reports/${code}`));
    expect(tracking.apply).toEqual(item.apply);
    const work = await dataOf(await fetch(`${restarted.url}/api/v1/works/bach-prelude-in-c-bwv-846`));
    expect(work.year).toBe('1722 (autograph dated 1722)');
    // Merged once, not twice.
    const merges = execFileSync(
      'git',
      [
        '-C',
        path.join(dataDir, 'content'),
        'log',
        '--merges',
        '--format=%H',
        '--fixed-strings',
        `--grep=Tracking-Code: ${code}`,
        'main',
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    expect(merges).toHaveLength(1);
    expect(restarted.output()).toContain(`resuming the apply of ${code}`);
    expect(existsSync(path.join(dataDir, 'state', 'applying', `${code}.json`))).toBe(false);
  }, 600_000);
});

/**
 * The stock MCP Inspector CLI (`npx mcp-inspector --cli`, the @modelcontextprotocol/inspector
 * devDependency) against /mcp over Streamable HTTP, on a loaded machine: two CPU burners (one per
 * core) run beside it for the whole test. Each CLI run connects, initializes, compiles the tool
 * schemas it is given and makes its call on a fresh process, as a busy client would: tools/list
 * and five tools/call must complete (issue 57: 13 of 13 calls failed with "fetch failed" when
 * tools/list was 89 KB and idle sockets closed under the schema compile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { killTree } from '../helpers/process.ts';
import { listenArchive, type ListeningArchive } from './helpers.ts';

let archive: ListeningArchive;
let home: string;
const burners: ChildProcess[] = [];
/** A burner stops by itself after this long, whatever happens to the test. */
const BURN_MS = 10 * 60_000;

beforeAll(async () => {
  archive = await listenArchive();
  home = mkdtempSync(path.join(os.tmpdir(), 'pdma-inspector-home-'));
  for (let k = 0; k < Math.max(2, os.availableParallelism()); k++)
    burners.push(
      spawn(process.execPath, ['-e', `const end = Date.now() + ${BURN_MS}; let x = 0; while (Date.now() < end) x++;`], {
        stdio: 'ignore',
      }),
    );
});

afterAll(async () => {
  for (const b of burners) b.kill('SIGKILL');
  await archive?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One Inspector CLI run against /mcp (its own HOME: the CLI keeps a catalog and secrets there). */
function inspector(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['mcp-inspector', '--cli', `${archive.url}/mcp`, '--transport', 'http', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, HOME: home, NO_COLOR: '1', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => killTree(child.pid!), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function json(run: CliRun): Record<string, unknown> {
  const text = run.stdout.trim();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${text.slice(0, 500)}\n${run.stderr.slice(0, 1000)}`);
  }
}

const CALLS: Array<[string, Record<string, unknown>]> = [
  [
    'resolve_music',
    {
      channel: { channelKey: 'inspector-bed', intendedRole: 'music-bed', narrationPresent: true },
      requirements: { mood: 'chilled, laid-back', requiredFormats: ['mp3'] },
    },
  ],
  ['search_works', { composer: 'satie' }],
  ['get_work', { slug: 'pachelbel-canon-in-d' }],
  ['get_contribution_template', { workSlug: 'satie-gymnopedie-1', operation: 'performance' }],
  ['list_instruments', {}],
];

describe('the stock MCP Inspector CLI over HTTP, with a CPU burner running', () => {
  it('completes tools/list and five tools/call', async () => {
    const load: number[] = [];
    const list = await inspector(['--method', 'tools/list']);
    load.push(os.loadavg()[0]!);
    expect(list.code, list.stderr).toBe(0);
    const tools = (json(list).tools ?? []) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(CALLS.map(([name]) => name)));
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    expect(bytes).toBeLessThan(30_000);
    for (const [name, args] of CALLS) {
      const run = await inspector([
        '--method',
        'tools/call',
        '--tool-name',
        name,
        '--tool-args-json',
        JSON.stringify(args),
      ]);
      load.push(os.loadavg()[0]!);
      expect(run.code, `${name}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 600)}`).toBe(0);
      const result = json(run) as {
        isError?: boolean;
        structuredContent?: unknown;
        content?: Array<{ text?: string }>;
      };
      expect(result.isError ?? false, name).toBe(false);
      expect(result.structuredContent, name).toBeDefined();
      // The text is a summary, not the data again.
      expect((result.content ?? []).map((c) => c.text ?? '').join('').length, name).toBeLessThan(1500);
    }
    console.info(
      `Inspector CLI: tools/list ${bytes} bytes, 5 tools/call completed; 1-minute load while it ran: ${load.map((l) => l.toFixed(1)).join(', ')} (${os.availableParallelism()} cores, ${burners.length} burners)`,
    );
  });
});

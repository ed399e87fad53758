/**
 * A real browser for the site tests: Debian's Chromium (/usr/bin/chromium, installed by npm test's pretest step when missing)
 * driven by playwright-core, headless, with no network beyond loopback. Playwright starts
 * Chromium with a fresh temporary --user-data-dir of its own (it refuses one in `args`), and
 * each test gets a new browser context, so no state leaks between tests.
 *
 * A missing or broken Chromium fails the tests loudly; ARCHIVE_SKIP_BROWSER_TESTS=1 is the only
 * way to skip them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startService, type Started } from './process.ts';
import { PROJECT_ROOT } from './app.ts';

export const CHROMIUM_PATH = process.env.ARCHIVE_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SKIP_BROWSER_TESTS = process.env.ARCHIVE_SKIP_BROWSER_TESTS === '1';
export const ARTIFACTS_DIR = path.join(PROJECT_ROOT, 'test', 'artifacts');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}. Install Debian's package (apt-get install -y chromium; npm test does it when run as root), ` +
        'or set ARCHIVE_SKIP_BROWSER_TESTS=1 to skip the browser tests knowingly.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export interface PageProbe {
  page: Page;
  context: BrowserContext;
  /** Dialogs (alert, confirm, prompt) the page opened; each is dismissed. */
  dialogs: string[];
  /** Uncaught exceptions in the page. */
  errors: string[];
  /** Requests that left loopback (there must be none: the machine has no outside network). */
  external: string[];
  /** Messages the page logged as console errors (a failed resource load, a script error ...). */
  consoleErrors: string[];
  /** Content-Security-Policy violations the page reported (securitypolicyviolation events). */
  cspViolations: string[];
}

/** A fresh context and page that records dialogs, page errors and any non-loopback request. */
export async function openPage(
  browser: Browser,
  options: { width?: number; javaScript?: boolean } = {},
): Promise<PageProbe> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 900 },
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  const probe: PageProbe = {
    page,
    context,
    dialogs: [],
    errors: [],
    external: [],
    consoleErrors: [],
    cspViolations: [],
  };
  // Every violation of the page's Content-Security-Policy is reported by the page itself.
  await page.exposeFunction('__reportCspViolation', (text: string) => probe.cspViolations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCspViolation(t: string): void }).__reportCspViolation(
        `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile || document.location.href}:${e.lineNumber}`,
      );
    });
  });
  page.on('console', (m) => {
    if (m.type() === 'error') probe.consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('dialog', (d) => {
    probe.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => probe.errors.push(e.message));
  await context.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => {
    const url = route.request().url();
    if (!url.startsWith('data:') && !url.startsWith('blob:')) probe.external.push(url);
    return route.abort();
  });
  return probe;
}

export interface ServedSite {
  service: Started;
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The real service (`npm start`'s entry) on a free loopback port with a temp ARCHIVE_DATA_DIR.
 * Without `contentDir` it seeds itself from the shipped catalog; with one, that folder is copied
 * into a fresh Git repository and served instead.
 */
export async function serveSite(contentDir?: string, extraEnv: Record<string, string> = {}): Promise<ServedSite> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-site-'));
  const env: Record<string, string> = { ...extraEnv, ARCHIVE_DATA_DIR: dataDir };
  if (contentDir) {
    const repo = path.join(dataDir, 'content');
    cpSync(contentDir, repo, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', [
        '-c',
        'user.name=Site Test',
        '-c',
        'user.email=site-test@localhost',
        '-c',
        'commit.gpgsign=false',
        '-C',
        repo,
        ...args,
      ]);
    git('init', '--quiet', '--initial-branch=main');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'Test content');
  }
  const service = await startService(env, 180_000);
  return {
    service,
    url: service.url,
    dataDir,
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Save a screenshot under test/artifacts/ (git-ignored) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, name);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Run axe-core in the page; returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const axe = (await import('axe-core')).default;
  // Evaluated through the DevTools protocol, not as an inline <script>: the site's
  // Content-Security-Policy rightly blocks inline scripts, and the audit is not the page's own.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const w = window as unknown as {
      axe: {
        run(
          ctx: unknown,
          opts: unknown,
        ): Promise<{
          violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
        }>;
      };
    };
    const result = await w.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

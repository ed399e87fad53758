/**
 * ARCHIVE_RECONCILE_SCHEDULE: the grammar, the next due time, and the setting's errors at config load;
 * the other rebuild settings' errors at config load (layer bound, warm build process budget).
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { nextReconcileAt, parseReconcileSchedule, scheduleText } from '../../src/domain/reconcile-schedule.ts';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { defaultWarmBuilderMaxRssBytes, WARM_BUILDER_MIN_RSS_BYTES } from '../../api/site/warm-builder.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function parsed(text: string) {
  const r = parseReconcileSchedule(text);
  if (!r.ok) throw new Error(`expected "${text}" to parse: ${r.problem}`);
  return r.schedule;
}

describe('parseReconcileSchedule', () => {
  it('reads off, intervals and daily times', () => {
    expect(parsed('off')).toEqual({ kind: 'off' });
    expect(parsed('')).toEqual({ kind: 'off' });
    expect(parsed(' OFF ')).toEqual({ kind: 'off' });
    expect(parsed('30m')).toEqual({ kind: 'interval', everyMs: 30 * 60_000, text: '30m' });
    expect(parsed('6h')).toEqual({ kind: 'interval', everyMs: 6 * 3_600_000, text: '6h' });
    expect(parsed('24h')).toEqual({ kind: 'interval', everyMs: 86_400_000, text: '24h' });
    expect(parsed('7d')).toEqual({ kind: 'interval', everyMs: 7 * 86_400_000, text: '7d' });
    expect(parsed('10080m')).toEqual({ kind: 'interval', everyMs: 7 * 86_400_000, text: '10080m' });
    expect(parsed('daily@03:00')).toEqual({ kind: 'daily', minuteOfDay: 180, text: 'daily@03:00' });
    expect(parsed('Daily@23:59')).toEqual({ kind: 'daily', minuteOfDay: 23 * 60 + 59, text: 'daily@23:59' });
    expect(scheduleText(parsed('6H'))).toBe('6h');
    expect(scheduleText(parsed('off'))).toBe('off');
  });

  it('refuses anything else with a problem that says what is expected', () => {
    for (const bad of [
      '0m',
      '0h',
      '8d',
      '169h',
      '10081m',
      '6',
      'h',
      '6 h',
      '6hours',
      '-1h',
      '1.5h',
      'every 6h',
      'on',
    ]) {
      const r = parseReconcileSchedule(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(/expected|outside/);
    }
    for (const bad of ['daily@24:00', 'daily@12:60', 'daily@3:00', 'daily@03:00Z', 'daily', 'daily@']) {
      const r = parseReconcileSchedule(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problem).toContain(bad);
    }
    const long = parseReconcileSchedule('9'.repeat(100));
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.problem).toMatch(/too long/);
  });
});

describe('nextReconcileAt', () => {
  it('an interval falls on whole multiples of it in UTC, strictly after now', () => {
    const sixHours = parsed('6h');
    expect(iso(nextReconcileAt(sixHours, at('2026-11-26T21:55:06.000Z')))).toBe('2026-11-27T00:00:00.000Z');
    expect(iso(nextReconcileAt(sixHours, at('2026-11-26T05:59:59.999Z')))).toBe('2026-11-26T06:00:00.000Z');
    // Exactly at a due time: the next one (the one due now has just run).
    expect(iso(nextReconcileAt(sixHours, at('2026-11-26T06:00:00.000Z')))).toBe('2026-11-26T12:00:00.000Z');
    expect(iso(nextReconcileAt(parsed('30m'), at('2026-11-26T21:55:06.000Z')))).toBe('2026-11-26T22:00:00.000Z');
  });

  it('a daily time is today when still ahead, else tomorrow', () => {
    const three = parsed('daily@03:00');
    expect(iso(nextReconcileAt(three, at('2026-11-26T02:59:00.000Z')))).toBe('2026-11-26T03:00:00.000Z');
    expect(iso(nextReconcileAt(three, at('2026-11-26T03:00:00.000Z')))).toBe('2026-11-27T03:00:00.000Z');
    expect(iso(nextReconcileAt(three, at('2026-11-26T21:55:06.000Z')))).toBe('2026-11-27T03:00:00.000Z');
    expect(iso(nextReconcileAt(parsed('daily@00:00'), at('2026-12-31T23:59:59.000Z')))).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });

  it('off is never', () => {
    expect(nextReconcileAt(parsed('off'), Date.now())).toBeNull();
  });
});

describe('the settings at config load', () => {
  it('default to no reconcile at all: none after applies, none on a schedule', () => {
    const config = loadConfig({}, PROJECT_ROOT);
    expect(config.reconcileDelayMs).toBeNull();
    expect(config.reconcileSchedule).toEqual({ kind: 'off' });
  });

  it('read a schedule and the opt-in delay after each apply', () => {
    const config = loadConfig(
      { ARCHIVE_RECONCILE_SCHEDULE: 'daily@03:30', ARCHIVE_RECONCILE_DELAY_MS: '30000' },
      PROJECT_ROOT,
    );
    expect(config.reconcileSchedule).toEqual({ kind: 'daily', minuteOfDay: 210, text: 'daily@03:30' });
    expect(config.reconcileDelayMs).toBe(30_000);
  });

  it('refuse a bad schedule naming the setting and the value', () => {
    expect(() => loadConfig({ ARCHIVE_RECONCILE_SCHEDULE: 'hourly' }, PROJECT_ROOT)).toThrow(ConfigError);
    expect(() => loadConfig({ ARCHIVE_RECONCILE_SCHEDULE: 'hourly' }, PROJECT_ROOT)).toThrow(
      /^ARCHIVE_RECONCILE_SCHEDULE "hourly" is not a schedule; expected "off", an interval/,
    );
    expect(() => loadConfig({ ARCHIVE_RECONCILE_SCHEDULE: '8d' }, PROJECT_ROOT)).toThrow(
      /^ARCHIVE_RECONCILE_SCHEDULE "8d" is outside 1 to 7 days/,
    );
    expect(() => loadConfig({ ARCHIVE_RECONCILE_DELAY_MS: 'soon' }, PROJECT_ROOT)).toThrow(
      /ARCHIVE_RECONCILE_DELAY_MS must be a number of milliseconds or "off"/,
    );
  });

  it('read the layer bound the server compacts from (ARCHIVE_LAYER_MAX_PATHS), refusing a bad one at start', () => {
    expect(loadConfig({}, PROJECT_ROOT).layerMaxPaths).toBe(20_000);
    expect(loadConfig({ ARCHIVE_LAYER_MAX_PATHS: '0' }, PROJECT_ROOT).layerMaxPaths).toBe(0);
    expect(() => loadConfig({ ARCHIVE_LAYER_MAX_PATHS: 'many' }, PROJECT_ROOT)).toThrow(ConfigError);
    expect(() => loadConfig({ ARCHIVE_LAYER_MAX_PATHS: 'many' }, PROJECT_ROOT)).toThrow(
      /^ARCHIVE_LAYER_MAX_PATHS must be a whole number from 0/,
    );
  });

  it('read whether the warm build process warms up at start (ARCHIVE_WARM_BUILDER_WARM_UP), refusing a bad value', () => {
    expect(loadConfig({}, PROJECT_ROOT).warmBuilderWarmUp).toBe(true);
    expect(loadConfig({ ARCHIVE_WARM_BUILDER_WARM_UP: '0' }, PROJECT_ROOT).warmBuilderWarmUp).toBe(false);
    expect(loadConfig({ ARCHIVE_WARM_BUILDER_WARM_UP: '1' }, PROJECT_ROOT).warmBuilderWarmUp).toBe(true);
    expect(() => loadConfig({ ARCHIVE_WARM_BUILDER_WARM_UP: 'yes' }, PROJECT_ROOT)).toThrow(
      /^ARCHIVE_WARM_BUILDER_WARM_UP must be 0 or 1 \(got "yes"\)/,
    );
  });

  it("read the warm build process's memory budget (ARCHIVE_WARM_BUILDER_MAX_RSS_MB), refusing a bad one at start", () => {
    // Default: a quarter of the memory this process may use, never under 1.5 GiB.
    const quarter = Math.floor(Math.min(os.totalmem(), process.constrainedMemory() || Infinity) / 4);
    expect(defaultWarmBuilderMaxRssBytes()).toBe(Math.max(WARM_BUILDER_MIN_RSS_BYTES, quarter));
    expect(loadConfig({}, PROJECT_ROOT).warmBuilderMaxRssBytes).toBe(defaultWarmBuilderMaxRssBytes());
    expect(loadConfig({ ARCHIVE_WARM_BUILDER_MAX_RSS_MB: '4096' }, PROJECT_ROOT).warmBuilderMaxRssBytes).toBe(
      4096 * 1024 * 1024,
    );
    for (const bad of ['lots', '100', '70000', '2.5']) {
      expect(() => loadConfig({ ARCHIVE_WARM_BUILDER_MAX_RSS_MB: bad }, PROJECT_ROOT)).toThrow(
        new RegExp(
          `^ARCHIVE_WARM_BUILDER_MAX_RSS_MB must be a whole number of MiB from 256 to 65536 \\(got "${bad.replace('.', '\\.')}"\\)`,
        ),
      );
    }
  });
});

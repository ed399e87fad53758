/**
 * The shape every bench section returns, and the one writer for the result files
 * (`bench/results/<timestamp>.json` and `bench/results/latest.json`) and the printed summary.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cleanup } from './util.ts';

/** One measured number with the baseline measured in the same run. ratio = value / baseline. */
export interface Figure {
  name: string;
  unit: string;
  value: number | null;
  baseline: number | null;
  /** What the baseline is, e.g. "nginx 1.22.1, same build folder". */
  baselineLabel: string;
  ratio: number | null;
  /** Which direction of `value` is better. */
  better: 'higher' | 'lower';
  /** Target for `ratio`, when the section has one. */
  goal?: { ratio: number; op: '>=' | '<='; met: boolean | null };
}

export interface SectionResult {
  status: 'ok' | 'skipped' | 'error';
  /** Why it was skipped or failed, or a note worth reading. */
  message?: string;
  figures: Figure[];
  /** Section-specific, JSON-able detail (raw numbers, sizes, versions). */
  details: Record<string, unknown>;
  durationMs: number;
}

export interface SectionContext {
  quick: boolean;
  cleanup: Cleanup;
  log: (message: string) => void;
}

export interface Section {
  name: string;
  description: string;
  /** Run only when named in --only (a part of another section, for working on it alone). */
  optIn?: boolean;
  run(ctx: SectionContext): Promise<Omit<SectionResult, 'durationMs'>>;
}

export interface BenchResult {
  schemaVersion: 1;
  startedAtUtc: string;
  finishedAtUtc: string;
  durationMs: number;
  options: { quick: boolean; only: string[] };
  environment: Record<string, unknown>;
  sections: Record<string, SectionResult>;
}

export function figure(
  name: string,
  unit: string,
  value: number | null,
  baseline: number | null,
  baselineLabel: string,
  better: 'higher' | 'lower',
  goal?: { ratio: number; op: '>=' | '<=' },
): Figure {
  const r = value == null || baseline == null || baseline === 0 ? null : Math.round((value / baseline) * 1000) / 1000;
  const f: Figure = { name, unit, value, baseline, baselineLabel, ratio: r, better };
  if (goal) f.goal = { ...goal, met: r == null ? null : goal.op === '>=' ? r >= goal.ratio : r <= goal.ratio };
  return f;
}

function gitInfo(root: string): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const status = execFileSync('git', ['-C', root, 'status', '--porcelain'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}

export function environment(root: string): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model ?? null,
    cpuCount: cpus.length,
    totalMemoryBytes: os.totalmem(),
    /** 1, 5 and 15 minute load averages when the run started: a busy machine skews every figure. */
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
    git: gitInfo(root),
  };
}

/** Write `<dir>/<ISO timestamp>.json` and `<dir>/latest.json`; returns the timestamped path. */
export function writeResult(dir: string, result: BenchResult): string {
  mkdirSync(dir, { recursive: true });
  const stamp = result.startedAtUtc.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const file = path.join(dir, `${stamp}.json`);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(path.join(dir, 'latest.json'), text);
  return file;
}

function fmt(n: number | null, unit: string): string {
  if (n == null) return 'n/a';
  if (unit === 'bytes') {
    // Page weights are tens of KB, build memory is GiB: pick the scale that keeps digits readable.
    if (Math.abs(n) < 1024 * 1024) return `${(n / 1000).toFixed(1)} KB`;
    return `${(n / 1024 / 1024).toFixed(0)} MiB`;
  }
  const digits = Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2;
  return `${n.toFixed(digits)} ${unit}`;
}

export function summary(result: BenchResult): string {
  const lines: string[] = [];
  lines.push(
    `bench ${result.startedAtUtc}${result.options.quick ? ' (quick)' : ''}, ${(result.durationMs / 1000).toFixed(0)} s`,
  );
  for (const [name, s] of Object.entries(result.sections)) {
    lines.push(
      `\n[${name}] ${s.status}${s.message ? `: ${s.message.split('\n')[0]}` : ''} (${(s.durationMs / 1000).toFixed(0)} s)`,
    );
    for (const f of s.figures) {
      const goal = f.goal
        ? `  goal ${f.goal.op} ${f.goal.ratio}: ${f.goal.met === null ? 'n/a' : f.goal.met ? 'met' : 'NOT MET'}`
        : '';
      lines.push(
        `  ${f.name}: ${fmt(f.value, f.unit)} vs ${fmt(f.baseline, f.unit)} (${f.baselineLabel})  ratio ${f.ratio ?? 'n/a'}${goal}`,
      );
    }
  }
  return lines.join('\n');
}

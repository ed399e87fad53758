/**
 * The resident memory of a process and every process under it (Linux /proc): what
 * ARCHIVE_MEMORY_LIMIT_MB bounds (api/site/memory-plan.ts) and `/metrics` reports as
 * `archive_process_tree_rss_bytes`. One pass over /proc per call; 0 where /proc is not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Parent of each process now: pid -> ppid. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `root` and its descendants, by pid. */
export function processTree(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) {
    const list = byParent.get(ppid) ?? [];
    list.push(pid);
    byParent.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  // Bounded by the processes there are: each is visited once.
  while (queue.length > 0 && out.length < 100_000) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(byParent.get(pid) ?? []));
  }
  return out;
}

/** Resident memory of `root` and every process under it, bytes (0 without /proc). */
export function processTreeRssBytes(root: number = process.pid): number {
  return processTree(root).reduce((sum, pid) => sum + rssOf(pid), 0);
}

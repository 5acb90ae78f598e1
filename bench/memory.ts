/**
 * Resident memory of a run's processes, sampled from /proc: each named process with every
 * process under it (PostgreSQL's backends, a wrapper's child). A process's own pages are its
 * RSS; for a tree that shares memory (PostgreSQL's shared buffers, mapped by every backend) the
 * sum of RSS would count the shared pages once per process, so a tree's figure is the sum of
 * its processes' PSS (proportional set size: each shared page divided among its users), which
 * for a lone process equals its RSS less its share of the libraries it maps with others.
 */
import { readFileSync, readdirSync } from "node:fs";

/** Children of every process, from /proc/<pid>/stat (field 4 is the parent). */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command may hold spaces and parentheses: fields start after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/** `pid` and every process under it, but not the subtrees of the processes in `except`. */
export function processTree(pid: number, children = childrenByParent(), except: ReadonlySet<number> = new Set()): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []).filter((c) => !except.has(c)));
  return tree;
}

const kb = (text: string, field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

/** A process's RSS in MB (undefined once it has exited). */
export function rssMb(pid: number): number | undefined {
  try {
    const v = kb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS");
    return v === undefined ? undefined : v / 1024;
  } catch {
    return undefined;
  }
}

/** The PSS of `pid` and every process under it, in MB (undefined once it has exited). */
export function treePssMb(pid: number, children = childrenByParent(), except: ReadonlySet<number> = new Set()): number | undefined {
  let total = 0;
  let any = false;
  for (const p of processTree(pid, children, except)) {
    try {
      const v = kb(readFileSync(`/proc/${p}/smaps_rollup`, "utf8"), "Pss");
      if (v !== undefined) {
        total += v;
        any = true;
      }
    } catch {
      // exited meanwhile, or not readable
    }
  }
  return any ? total / 1024 : undefined;
}

export type ProcessMemory = {
  name: string;
  samples: number;
  /** MB at the first sample, the largest, and at the last. */
  startMb: number;
  peakMb: number;
  endMb: number;
  /** Least-squares slope of the samples over time, MB per minute (the trend, not two noisy end points). */
  growthMbPerMinute: number;
};

export type MemoryReport = { intervalSeconds: number; minutes: number; processes: ProcessMemory[] };

/** Least-squares slope of `y` over `x`. */
export function slope(points: { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / points.length;
  const my = points.reduce((a, p) => a + p.y, 0) / points.length;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/**
 * Samples every `intervalMs` the memory of the processes `pids()` names (a name's pid may change:
 * a restarted process is followed; one not running at a sample is skipped there). Each figure is
 * the PSS of the process and its descendants (see above), less the named processes under it: the
 * supervisor's own figure leaves out the children it names.
 */
export function startMemorySampler(
  pids: () => Record<string, number | undefined>,
  intervalMs = 10_000,
): { stop: () => MemoryReport; sample: () => void; latest: () => Record<string, number> } {
  const started = Date.now();
  const series = new Map<string, { x: number; y: number }[]>();
  const sample = () => {
    const children = childrenByParent();
    const minutes = (Date.now() - started) / 60_000;
    const named = pids();
    const roots = new Set(Object.values(named).filter((p): p is number => p !== undefined));
    for (const [name, pid] of Object.entries(named)) {
      if (pid === undefined) continue;
      const mb = treePssMb(pid, children, roots);
      if (mb === undefined) continue;
      const points = series.get(name) ?? [];
      points.push({ x: minutes, y: mb });
      series.set(name, points);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    sample,
    latest: () => Object.fromEntries([...series.entries()].map(([name, points]) => [name, points.at(-1)!.y])),
    stop: () => {
      clearInterval(timer);
      sample();
      const processes = [...series.entries()].map(([name, points]) => ({
        name,
        samples: points.length,
        startMb: points[0]!.y,
        peakMb: Math.max(...points.map((p) => p.y)),
        endMb: points.at(-1)!.y,
        growthMbPerMinute: slope(points),
      }));
      return { intervalSeconds: intervalMs / 1000, minutes: (Date.now() - started) / 60_000, processes };
    },
  };
}

/**
 * Counters of the tool cache, in total and per tool. Plain data, so callers can
 * log them as JSON; {@link formatStats} prints them as a table.
 */

/** Why an entry left the cache. */
export type EvictionReason = 'write' | 'expired' | 'capacity' | 'corrupt';

/** Counters of one tool (or of all tools, in {@link ToolCacheStats}). */
export interface ToolStats {
  /** Calls answered from the cache (the tool did not run). */
  readonly hits: number;
  /** Cacheable calls that ran the tool. */
  readonly misses: number;
  /** Calls that joined an identical call already running (singleflight). */
  readonly shared: number;
  /** Calls passed through without caching (undeclared or non-cacheable tool, write tool, degraded store). */
  readonly bypassed: number;
  /** Misses whose result was not inserted because an invalidation happened while the tool ran (epoch moved). */
  readonly staleDrops: number;
  /**
   * Evicted entries by reason (attributed to the tool of the evicted entry). On Redis a write to everything deletes
   * no entry itself: each one it made unreachable counts under `write` when a read meets and deletes it (once across
   * a fleet); one never read again is never counted.
   */
  readonly evictions: { readonly [R in EvictionReason]: number };
  /** Successful write-tool calls. */
  readonly writes: number;
  /** Failed write-tool calls (they evict nothing). */
  readonly failedWrites: number;
  /** Store methods that threw; the call still ran the tool. */
  readonly storeErrors: number;
  /** Sum of the original durations of hits. */
  readonly timeSavedMs: number;
}

/** Totals plus a per-tool breakdown. */
export interface ToolCacheStats extends ToolStats {
  readonly perTool: { readonly [tool: string]: ToolStats };
}

type Counter = Exclude<keyof ToolStats, 'evictions'>;

interface MutableStats {
  hits: number;
  misses: number;
  shared: number;
  bypassed: number;
  staleDrops: number;
  evictions: Record<EvictionReason, number>;
  writes: number;
  failedWrites: number;
  storeErrors: number;
  timeSavedMs: number;
}

function empty(): MutableStats {
  return {
    hits: 0,
    misses: 0,
    shared: 0,
    bypassed: 0,
    staleDrops: 0,
    evictions: { write: 0, expired: 0, capacity: 0, corrupt: 0 },
    writes: 0,
    failedWrites: 0,
    storeErrors: 0,
    timeSavedMs: 0,
  };
}

function copy(s: MutableStats): ToolStats {
  return { ...s, evictions: { ...s.evictions } };
}

/** Accumulates counters; {@link StatsRecorder.snapshot} returns an immutable copy. */
export class StatsRecorder {
  readonly #total = empty();
  readonly #perTool = new Map<string, MutableStats>();

  #tool(tool: string): MutableStats {
    let s = this.#perTool.get(tool);
    if (s === undefined) this.#perTool.set(tool, (s = empty()));
    return s;
  }

  add(tool: string, counter: Counter, by = 1): void {
    this.#total[counter] += by;
    this.#tool(tool)[counter] += by;
  }

  /** One hit that saved `savedMs` of tool time (both counters in one step: the hit path is hot). */
  hit(tool: string, savedMs: number): void {
    this.#total.hits += 1;
    this.#total.timeSavedMs += savedMs;
    const s = this.#tool(tool);
    s.hits += 1;
    s.timeSavedMs += savedMs;
  }

  evicted(tool: string, reason: EvictionReason, by = 1): void {
    this.#total.evictions[reason] += by;
    this.#tool(tool).evictions[reason] += by;
  }

  snapshot(): ToolCacheStats {
    const perTool: Record<string, ToolStats> = {};
    for (const name of [...this.#perTool.keys()].sort()) perTool[name] = copy(this.#perTool.get(name) as MutableStats);
    return { ...copy(this.#total), perTool };
  }
}

const COLUMNS: ReadonlyArray<readonly [string, (s: ToolStats) => string]> = [
  ['hits', (s) => String(s.hits)],
  ['misses', (s) => String(s.misses)],
  ['shared', (s) => String(s.shared)],
  ['bypassed', (s) => String(s.bypassed)],
  ['stale drops', (s) => String(s.staleDrops)],
  ['evict write', (s) => String(s.evictions.write)],
  ['evict expired', (s) => String(s.evictions.expired)],
  ['evict capacity', (s) => String(s.evictions.capacity)],
  ['evict corrupt', (s) => String(s.evictions.corrupt)],
  ['writes', (s) => String(s.writes)],
  ['failed writes', (s) => String(s.failedWrites)],
  ['store errors', (s) => String(s.storeErrors)],
  ['hit rate', (s) => (s.hits + s.misses === 0 ? '-' : `${((100 * s.hits) / (s.hits + s.misses)).toFixed(1)}%`)],
  ['time saved', (s) => `${Math.round(s.timeSavedMs)} ms`],
];

/**
 * Prints stats as a fixed-width table: one row per tool, then the total.
 *
 * @example
 * ```ts
 * console.log(formatStats(cache.stats()));
 * ```
 */
export function formatStats(stats: ToolCacheStats): string {
  const rows: string[][] = [['tool', ...COLUMNS.map(([h]) => h)]];
  for (const [tool, s] of Object.entries(stats.perTool)) rows.push([tool, ...COLUMNS.map(([, f]) => f(s))]);
  rows.push(['(total)', ...COLUMNS.map(([, f]) => f(stats))]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

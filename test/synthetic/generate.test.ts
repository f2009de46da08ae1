import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { generateTrace, TRACE_PROFILES } from '../../src/synthetic/index.js';
import { formatTrace, parseTrace, type TraceEvent } from '../../src/trace/index.js';
import { quantile, shape } from './stats.js';

describe('generateTrace', () => {
  it('is deterministic: the same options give the same bytes, another seed different ones', () => {
    const a = formatTrace(generateTrace({ seed: 7, profile: 'coding', requests: 30 }));
    const b = formatTrace(generateTrace({ seed: 7, profile: 'coding', requests: 30 }));
    const c = formatTrace(generateTrace({ seed: 8, profile: 'coding', requests: 30 }));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('produces traces the reader accepts, for every profile, and they round-trip byte for byte', () => {
    for (const profile of TRACE_PROFILES) {
      const events = generateTrace(profile === 'compaction' ? { seed: 3, profile, minChars: 200_000 } : { seed: 3, profile });
      const text = formatTrace(events);
      const parsed = parseTrace(text, `${profile}.jsonl`);
      expect(parsed).toEqual(events);
      expect(formatTrace(parsed)).toBe(text);
    }
  });

  it('emits exactly the requested number of requests, every turn within the rounds range', () => {
    for (const requests of [1, 5, 29, 120]) {
      const s = shape(generateTrace({ seed: requests, profile: 'coding', requests }));
      expect(s.requests).toBe(requests);
      if (requests >= 4) expect(Math.min(...s.roundsPerTurn)).toBeGreaterThanOrEqual(4);
    }
    const t = shape(generateTrace({ seed: 1, turns: 5, rounds: { median: 6, min: 3, max: 9 } }));
    expect(t.turns).toBe(5);
    expect(t.roundsPerTurn.every((r) => r >= 3 && r <= 9)).toBe(true);
  });

  it('keeps adding turns until minChars of content when asked', () => {
    const events = generateTrace({ seed: 2, profile: 'coding', minChars: 300_000 });
    expect(formatTrace(events).length).toBeGreaterThan(300_000);
  });

  it('has realistic shapes over a large sample of mixed sessions', () => {
    const all = Array.from({ length: 60 }, (_, i) => shape(generateTrace({ seed: 1000 + i, profile: 'mixed' })));
    const sizes = all.flatMap((s) => s.resultSizes);
    const rounds = all.flatMap((s) => s.roundsPerTurn);
    const gaps = all.flatMap((s) => s.requestGaps);
    // Real sessions: median result ~275 characters, p90 ~2.4k, a heavy tail.
    expect(quantile(sizes, 0.5)).toBeGreaterThan(180);
    expect(quantile(sizes, 0.5)).toBeLessThan(420);
    expect(quantile(sizes, 0.9)).toBeGreaterThan(1600);
    expect(quantile(sizes, 0.9)).toBeLessThan(3600);
    expect(Math.max(...sizes)).toBeGreaterThan(40_000);
    // 4–60 rounds per turn, skewed: median around 8.
    expect(Math.min(...rounds)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...rounds)).toBeLessThanOrEqual(60);
    expect(quantile(rounds, 0.5)).toBeGreaterThanOrEqual(6);
    expect(quantile(rounds, 0.5)).toBeLessThanOrEqual(11);
    // Median session ~29 requests.
    const requests = all.map((s) => s.requests);
    expect(quantile(requests, 0.5)).toBeGreaterThanOrEqual(20);
    expect(quantile(requests, 0.5)).toBeLessThanOrEqual(40);
    // Seconds between requests: most gaps 2–20 s.
    const within = gaps.filter((g) => g >= 2_000 && g <= 20_000).length / gaps.length;
    expect(within).toBeGreaterThan(0.75);
    // Thinking with signatures, some redacted, some failures, durations everywhere.
    const sum = (k: 'thinking' | 'redacted' | 'errors' | 'withDuration') => all.reduce((n, s) => n + s[k], 0);
    expect(sum('thinking') / requests.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.4);
    expect(sum('redacted')).toBeGreaterThan(0);
    expect(sum('errors') / sizes.length).toBeGreaterThan(0.01);
    expect(sum('errors') / sizes.length).toBeLessThan(0.1);
    expect(sum('withDuration')).toBe(sizes.length);
    expect(Math.max(...all.map((s) => s.maxParallel))).toBeGreaterThanOrEqual(3);
  });

  it('puts idle gaps over 5 minutes and over 1 hour when asked, and none by default', () => {
    const idle = shape(generateTrace({ seed: 5, profile: 'coding', requests: 120, idleGaps: { over5m: 2, over1h: 1 } }));
    const over5m = idle.requestGaps.filter((g) => g > 5 * 60_000 && g < 60 * 60_000);
    const over1h = idle.requestGaps.filter((g) => g > 60 * 60_000);
    expect([over5m.length, over1h.length]).toEqual([2, 1]);
    expect(Math.max(...over1h)).toBeLessThan(2.1 * 60 * 60_000);
    const plain = shape(generateTrace({ seed: 5, profile: 'coding', requests: 120 }));
    expect(plain.requestGaps.filter((g) => g > 5 * 60_000)).toEqual([]);
  });

  it('makes a fan-out round of 20+ parallel calls in the fanout profile', () => {
    for (const seed of [1, 2, 3]) expect(shape(generateTrace({ seed, profile: 'fanout' })).maxParallel).toBeGreaterThanOrEqual(20);
  });

  it('forces a result of several hundred thousand characters in the research profile', () => {
    const s = shape(generateTrace({ seed: 4, profile: 'research', requests: 20 }));
    expect(Math.max(...s.resultSizes)).toBeGreaterThanOrEqual(300_000);
    expect(Math.max(...s.resultSizes)).toBeLessThanOrEqual(870_000);
  });

  it('with distinctSearches, never repeats a web search query of the session (without it, long research sessions do by chance)', () => {
    const queries = (events: readonly TraceEvent[]): string[] =>
      events.flatMap((e) =>
        e.type === 'assistant'
          ? e.content.flatMap((b) => (b.type === 'tool_use' && b.name === 'WebSearch' ? [String((b.input as { query: string }).query)] : []))
          : [],
      );
    const options = { seed: 'judge-23', profile: 'research', requests: 195 } as const;
    const chance = queries(generateTrace(options));
    expect(chance.length).toBeGreaterThan(40);
    expect(new Set(chance).size).toBeLessThan(chance.length);
    const distinct = queries(generateTrace({ ...options, distinctSearches: true }));
    expect(distinct.length).toBeGreaterThan(40);
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it('with distinctLookups, never repeats a lookup (Bash, Grep, Glob) with the same arguments while nothing was written since (without it, the small pools repeat by chance)', () => {
    // What the forced-recall count calls a re-run with nothing changed (src/replay/recalls.ts): same tool and
    // arguments, no Edit or Write call in between.
    const unchangedRepeats = (events: readonly TraceEvent[]): string[] => {
      const seen = new Map<string, number>();
      const out: string[] = [];
      let writes = 0;
      for (const e of events) {
        if (e.type !== 'assistant') continue;
        for (const b of e.content) {
          if (b.type !== 'tool_use') continue;
          if (b.name === 'Edit' || b.name === 'Write') writes++;
          if (b.name !== 'Bash' && b.name !== 'Grep' && b.name !== 'Glob') continue;
          const key = `${b.name} ${JSON.stringify(b.input)}`;
          if (seen.get(key) === writes) out.push(key);
          seen.set(key, writes);
        }
      }
      return out;
    };
    const lookups = (events: readonly TraceEvent[]): number =>
      events.flatMap((e) => (e.type === 'assistant' ? e.content.filter((b) => b.type === 'tool_use' && ['Bash', 'Grep', 'Glob'].includes(b.name)) : [])).length;
    for (const seed of ['judge-140', 'judge-191', 'judge-211']) {
      const options = { seed, profile: 'coding', requests: 180, revisits: true } as const;
      const chance = generateTrace(options);
      expect(unchangedRepeats(chance).length).toBeGreaterThan(0);
      const distinct = generateTrace({ ...options, distinctLookups: true });
      expect(unchangedRepeats(distinct)).toEqual([]);
      // A repeat is replaced by another action of the phase (often another lookup), not dropped: lookups stay common.
      expect(lookups(distinct)).toBeGreaterThan(0.8 * lookups(chance));
    }
    // A session that draws no repeat keeps its bytes.
    const short = { seed: 5, profile: 'coding', requests: 8 } as const;
    expect(unchangedRepeats(generateTrace(short))).toEqual([]);
    expect(formatTrace(generateTrace({ ...short, distinctLookups: true }))).toBe(formatTrace(generateTrace(short)));
  });

  it('emits a tail that changes every request in the volatile-tail profile', () => {
    const s = shape(generateTrace({ seed: 6, profile: 'volatile-tail', requests: 25 }));
    expect(s.tails).toHaveLength(25);
    expect(new Set(s.tails).size).toBe(25);
  });

  it('re-reads the same files in coding sessions, edits them in between, and hides superseded reads', () => {
    const events = generateTrace({ seed: 9, profile: 'coding', requests: 60 });
    const reads = new Map<string, number>();
    const edits = new Set<string>();
    for (const e of events) {
      if (e.type !== 'assistant') continue;
      for (const b of e.content) {
        if (b.type !== 'tool_use') continue;
        const path = (b.input as { file_path?: string }).file_path ?? '';
        if (b.name === 'Read') reads.set(path, (reads.get(path) ?? 0) + 1);
        if (b.name === 'Edit') edits.add(path);
      }
    }
    expect(Math.max(...reads.values())).toBeGreaterThanOrEqual(3);
    expect([...edits].some((p) => (reads.get(p) ?? 0) >= 2)).toBe(true);
    expect(shape(events).hides).toBeGreaterThan(0);
  });

  it('writes tool_use inputs with the keys in the order a model produces them', () => {
    const events = generateTrace({ seed: 11, profile: 'coding', requests: 60 });
    const keys = new Map<string, string>();
    for (const e of events as TraceEvent[]) {
      if (e.type === 'assistant')
        for (const b of e.content) if (b.type === 'tool_use' && !keys.has(b.name)) keys.set(b.name, Object.keys(b.input as object).join(','));
    }
    expect(keys.get('Edit')).toBe('file_path,old_string,new_string');
    expect(keys.get('Bash')).toBe('command,description');
    expect(keys.get('Read')?.startsWith('file_path')).toBe(true);
  });

  it('rejects out-of-range options, naming the option', () => {
    expect(() => generateTrace({ seed: 1, requests: 0 })).toThrow(InvalidOptionError);
    expect(() => generateTrace({ seed: 1, requests: 10, turns: 2 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: requests: give at most one of requests, turns and minChars]`,
    );
    expect(() => generateTrace({ seed: 1, errorRate: 2 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: errorRate: must be a probability in [0, 1], got 2]`,
    );
    expect(() => generateTrace({ seed: 1, profile: 'chat' as never })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: profile: must be one of coding, research, fanout, idle, volatile-tail, compaction, mixed, got "chat"]`,
    );
    expect(() => generateTrace({ seed: 1, rounds: { min: 10, median: 5 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: rounds: needs 1 ≤ min ≤ median ≤ max, got {"median":5,"min":10,"max":60}]`,
    );
  });

  it('says what a count option takes and carries the refused value (an array is not a count)', () => {
    let err: unknown;
    try {
      generateTrace({ seed: 1, hugeResults: [870_000] as never });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).value).toEqual([870_000]);
    expect(String(err)).toBe('InvalidOptionError: hugeResults: must be a non-negative integer (a count), got [870000]');
    expect(() => generateTrace({ seed: 1, requests: 2.5 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: requests: must be a positive integer, got 2.5]`,
    );
  });
});

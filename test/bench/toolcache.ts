/**
 * Tool-result cache benchmark.
 *
 * 1. Hit overhead: median time of a cache hit for a call with ~1 KB of
 *    arguments, against baselines measured in the same run (calling the tool
 *    function directly; canonical JSON + sha256 of the same arguments, the least
 *    work any content-addressed cache must do).
 * 2. Replay of a coding session (fixtures/*.jsonl when present, else a seeded
 *    synthetic workload) against an in-memory file system: share of tool calls
 *    served from the cache, and stale hits (every hit is checked against the file
 *    system; must be 0).
 *
 * Run: `npx tsx test/bench/toolcache.ts` (or through the bench runner).
 */

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeTools } from '../../src/toolcache/claude-code.js';
import { canonicalJson } from '../../src/toolcache/key.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';

type Row = { name: string; value: number | string; unit?: string; baseline?: string };

// MEASUREMENT

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median per-call time in µs over `batches` batches of `per` calls (batching hides timer resolution). */
async function perCallMicros(batches: number, per: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) await fn();
    samples.push(((performance.now() - t0) * 1000) / per);
  }
  return median(samples);
}

function oneKbArgs(): Record<string, unknown> {
  const args = {
    path: 'src/services/billing/invoice-renderer.ts',
    options: { encoding: 'utf8', offset: 120, limit: 400, follow: false },
    context: {
      reason: 'Checking how totals are rounded before the refund path runs',
      related: Array.from({ length: 12 }, (_, i) => `src/services/billing/part-${i}.ts`),
      notes: 'x'.repeat(380),
    },
  };
  return args;
}

async function hitOverhead(): Promise<Row[]> {
  const args = oneKbArgs();
  const argBytes = Buffer.byteLength(JSON.stringify(args));
  const content = 'line of source\n'.repeat(200);
  const tool = async (_a: unknown) => content;
  const cache = new ToolCache();
  cache.register('Read', { cacheable: true, ttl: { turns: 1_000_000 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  await cache.call('Read', args, tool, { scope: 'bench', callId: 'prime' });
  let n = 0;
  const hit = () => cache.call('Read', args, tool, { scope: 'bench', callId: `c${++n}` });
  const check = await hit();
  if (check.cache.type !== 'hit') throw new Error('bench setup: expected a hit');

  // Warm up the JIT on all three before measuring.
  for (let i = 0; i < 3000; i++) {
    await hit();
    await tool(args);
    createHash('sha256').update(canonicalJson(args)).digest('hex');
  }
  const hitUs = await perCallMicros(60, 200, hit);
  const directUs = await perCallMicros(60, 200, () => tool(args));
  const keyUs = await perCallMicros(60, 200, () => createHash('sha256').update(canonicalJson(args)).digest('hex'));
  return [
    { name: 'toolcache: argument size', value: argBytes, unit: 'bytes' },
    { name: 'toolcache: hit, median per call', value: Number(hitUs.toFixed(2)), unit: 'µs' },
    { name: 'toolcache: hit vs direct tool call', value: Number((hitUs / directUs).toFixed(1)), unit: '×', baseline: `direct call ${directUs.toFixed(3)} µs` },
    {
      name: 'toolcache: hit vs canonical JSON + sha256 of the args',
      value: Number((hitUs / keyUs).toFixed(2)),
      unit: '×',
      baseline: `key only ${keyUs.toFixed(2)} µs`,
    },
  ];
}

/** Small arguments, as most read calls have (each < 100 bytes of JSON). */
const SMALL_ARGS: ReadonlyArray<Record<string, unknown>> = [
  { file_path: 'src/services/billing/invoice.ts' },
  { path: 'src/main.rs', offset: 120, limit: 400 },
  { pattern: 'export function', path: 'src', glob: '*.ts', i: true },
];

/**
 * Hit cost for small arguments (< 100 bytes) against `Map.get(JSON.stringify(args))`, the least any
 * cache keyed by the arguments does, measured in the same run and alternated with it batch by batch;
 * median and range over `runs` runs.
 */
async function smallHits(runs = 9): Promise<Row[]> {
  const rows: Row[] = [];
  const content = 'line of source\n'.repeat(200);
  const tool = async (_a: unknown) => content;
  const cache = new ToolCache();
  cache.register('Read', {
    cacheable: true,
    ttl: { turns: 1_000_000 },
    reads: ['file'],
    tags: (a: Record<string, unknown>) => [fileTag(String(a.file_path ?? a.path ?? a.pattern))],
  });
  // The general path for reference: a store that is not the memory store gets hashed keys and async lookups.
  const inner = new MemoryToolCacheStore();
  const general = new ToolCache({
    store: {
      epoch: () => inner.epoch(),
      get: (k) => inner.get(k),
      insertIfEpoch: (e, ep) => inner.insertIfEpoch(e, ep),
      invalidate: (t) => inner.invalidate(t),
      delete: (k) => inner.delete(k),
    },
  });
  general.register('Read', {
    cacheable: true,
    ttl: { turns: 1_000_000 },
    reads: ['file'],
    tags: (a: Record<string, unknown>) => [fileTag(String(a.file_path ?? a.path ?? a.pattern))],
  });
  const map = new Map<string, string>();
  for (const args of SMALL_ARGS) {
    await cache.call('Read', args, tool, { scope: 'bench', callId: 'prime' });
    await general.call('Read', args, tool, { scope: 'bench', callId: 'prime' });
    map.set(JSON.stringify(args), content);
  }
  const hitUs: number[] = [];
  const mapUs: number[] = [];
  const ratios: number[] = [];
  let n = 0;
  const hit = async () => {
    for (const args of SMALL_ARGS) {
      const r = await cache.call('Read', args, tool, { scope: 'bench', callId: `c${++n}` });
      if (r.cache.type !== 'hit') throw new Error(`bench setup: expected a hit, got ${r.cache.type}`);
    }
  };
  const generalHit = async () => {
    for (const args of SMALL_ARGS) {
      const r = await general.call('Read', args, tool, { scope: 'bench', callId: `g${++n}` });
      if (r.cache.type !== 'hit') throw new Error(`bench setup: expected a hit, got ${r.cache.type}`);
    }
  };
  // The baseline is awaited too, as the cache's caller awaits a hit.
  const base = async () => {
    for (const args of SMALL_ARGS) if ((await map.get(JSON.stringify(args))) === undefined) throw new Error('bench setup: baseline miss');
  };
  for (let i = 0; i < 5000; i++) {
    await hit();
    await base();
    if (i % 5 === 0) await generalHit();
  }
  const generalRatios: number[] = [];
  // Each run: 30 pairs of batches, hit then baseline, back to back, so both see the same load; the
  // run's figures are the medians of its batches and of the per-pair ratios.
  const batch = async (f: () => Promise<void>, per: number): Promise<number> => {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) await f();
    return ((performance.now() - t0) * 1000) / (per * SMALL_ARGS.length);
  };
  for (let r = 0; r < runs; r++) {
    const hs: number[] = [];
    const bs: number[] = [];
    const rs: number[] = [];
    for (let p = 0; p < 30; p++) {
      const h = await batch(hit, 100);
      const b = await batch(base, 100);
      hs.push(h);
      bs.push(b);
      rs.push(h / b);
    }
    hitUs.push(median(hs));
    mapUs.push(median(bs));
    ratios.push(median(rs));
    const gs: number[] = [];
    for (let p = 0; p < 5; p++) gs.push((await batch(generalHit, 50)) / (await batch(base, 50)));
    generalRatios.push(median(gs));
  }
  const range = (xs: number[], d: number) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
  const sizes = SMALL_ARGS.map((a) => Buffer.byteLength(JSON.stringify(a)));
  rows.push(
    { name: 'toolcache: small args, sizes', value: sizes.join(' / '), unit: 'bytes' },
    {
      name: 'toolcache: small-args hit, median per call (target < 2)',
      value: Number(median(hitUs).toFixed(2)),
      unit: 'µs',
      baseline: `range ${range(hitUs, 2)} over ${runs} runs`,
    },
    {
      name: 'toolcache: small-args hit ÷ Map.get(JSON.stringify(args))',
      value: Number(median(ratios).toFixed(2)),
      unit: '×',
      baseline: `range ${range(ratios, 2)}; Map baseline ${median(mapUs).toFixed(3)} µs (${range(mapUs, 3)})`,
    },
    {
      name: 'toolcache: small-args hit through a non-memory store (hashed key, async get) ÷ Map baseline',
      value: Number(median(generalRatios).toFixed(2)),
      unit: '×',
      baseline: `range ${range(generalRatios, 2)}; the general path every other store takes (sha256 digest memoized)`,
    },
  );
  return rows;
}

/**
 * What a miss's insert and a write's invalidation cost with the tags a path brings (race13/dir13: a read of a
 * 5-segment absolute path stores 13 tags, its write evicts 25): a miss of that path (new arguments each time, one
 * path) and a write evicting the one read of it cached, each against the small-args Map baseline, alternated batch
 * by batch; median and range over `runs` runs.
 */
async function setCosts(runs = 5): Promise<Row[]> {
  const path = '/home/user/project/src/services/invoice.ts';
  const other = '/home/user/project/src/services/refund.ts';
  const content = 'line of source\n'.repeat(200);
  const tool = async (_a: unknown) => content;
  const cache = new ToolCache({ undeclared: 'passthrough', maxEntries: 2000 });
  cache.register('Read', { cacheable: true, ttl: { turns: 1_000_000 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  const map = new Map(SMALL_ARGS.map((a) => [JSON.stringify(a), content]));
  let n = 0;
  const miss = async () => {
    const r = await cache.call('Read', { file_path: other, offset: ++n }, tool, { scope: 'bench', callId: `m${n}` });
    if (r.cache.type !== 'miss' || !r.cache.inserted) throw new Error(`bench setup: expected an inserted miss, got ${JSON.stringify(r.cache)}`);
  };
  const write = async () => {
    const r = await cache.call('Edit', { file_path: path }, tool, { scope: 'bench', callId: `w${++n}` });
    if (r.cache.type !== 'write' || r.cache.evicted.length !== 1) throw new Error(`bench setup: expected one eviction, got ${JSON.stringify(r.cache)}`);
  };
  const reread = () => cache.call('Read', { file_path: path }, tool, { scope: 'bench', callId: `r${++n}` });
  const base = async () => {
    for (const a of SMALL_ARGS) if ((await map.get(JSON.stringify(a))) === undefined) throw new Error('bench setup: baseline miss');
  };
  const time = async (f: () => Promise<unknown>, per: number, between?: () => Promise<unknown>): Promise<number> => {
    let total = 0;
    for (let i = 0; i < per; i++) {
      if (between !== undefined) await between();
      const t0 = performance.now();
      await f();
      total += performance.now() - t0;
    }
    return (total * 1000) / per;
  };
  for (let i = 0; i < 3000; i++) {
    await miss();
    await reread();
    await write();
    await base();
  }
  const missUs: number[] = [];
  const writeUs: number[] = [];
  const baseUs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const ms: number[] = [];
    const ws: number[] = [];
    const bs: number[] = [];
    for (let p = 0; p < 20; p++) {
      ms.push(await time(miss, 100));
      ws.push(await time(write, 100, reread));
      bs.push((await time(base, 100)) / SMALL_ARGS.length);
    }
    missUs.push(median(ms));
    writeUs.push(median(ws));
    baseUs.push(median(bs));
  }
  const range = (xs: number[], d: number) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
  const b = `Map baseline ${median(baseUs).toFixed(3)} µs (${range(baseUs, 3)})`;
  return [
    {
      name: 'toolcache: miss + insert, 5-segment absolute path, median per call',
      value: Number(median(missUs).toFixed(2)),
      unit: 'µs',
      baseline: `range ${range(missUs, 2)} over ${runs} runs; ${b}`,
    },
    {
      name: 'toolcache: write evicting one read, 5-segment absolute path, median per call',
      value: Number(median(writeUs).toFixed(2)),
      unit: 'µs',
      baseline: `range ${range(writeUs, 2)} over ${runs} runs; ${b}`,
    },
  ];
}

// REPLAY

interface Use {
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly durationMs?: number;
}

/** A session as turns of waves (one wave = the tool_use blocks of one model response). */
type Session = Use[][][];

const READ_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch']);
const WRITE_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/** The directory a search or listing reads: Grep/LS `path`; a Glob's pattern up to its first glob segment, under `path`. */
function searchBase(input: Record<string, unknown>, glob: boolean): string {
  const dir = typeof input.path === 'string' ? input.path : '.';
  if (!glob) return dir;
  const pattern = String(input.pattern ?? '');
  const full = pattern.startsWith('/') ? pattern : `${dir}/${pattern}`;
  const segments = full.split('/');
  const first = segments.findIndex((x) => /[*?[{]/.test(x));
  return (first === -1 ? segments : segments.slice(0, first)).join('/') || '/';
}

function pathOf(input: Record<string, unknown>): string {
  const p = input.file_path ?? input.path ?? input.notebook_path ?? '.';
  return String(p);
}

function parseTrace(text: string): Session {
  const session: Session = [];
  const durations = new Map<string, number>();
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const events = lines.map((l) => JSON.parse(l) as { type: string; content?: unknown });
  for (const ev of events) {
    if (ev.type !== 'tool_results' || !Array.isArray(ev.content)) continue;
    for (const b of ev.content as Array<{ type: string; tool_use_id?: string; duration_ms?: number }>) {
      if (b.type === 'tool_result' && b.tool_use_id !== undefined && typeof b.duration_ms === 'number') durations.set(b.tool_use_id, b.duration_ms);
    }
  }
  for (const ev of events) {
    if (ev.type === 'user') session.push([]);
    if (ev.type !== 'assistant' || !Array.isArray(ev.content)) continue;
    if (session.length === 0) session.push([]);
    const wave: Use[] = [];
    for (const b of ev.content as Array<{ type: string; id: string; name: string; input: Record<string, unknown> }>) {
      if (b.type !== 'tool_use') continue;
      const d = durations.get(b.id);
      wave.push({ id: b.id, name: b.name, input: b.input ?? {}, ...(d === undefined ? {} : { durationMs: d }) });
    }
    if (wave.length > 0) session[session.length - 1]!.push(wave);
  }
  return session;
}

/** mulberry32: a small seeded PRNG, so the synthetic workload is the same every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A coding agent: re-reads its working set, searches, edits, sometimes creates files. Waves of 1–4 parallel calls. */
function syntheticSession(seed = 7, turns = 120): Session {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const files = Array.from({ length: 40 }, (_, i) => `src/mod${i % 8}/file${i}.ts`);
  let working: string[] = files.slice(0, 5);
  let id = 0;
  const session: Session = [];
  for (let t = 0; t < turns; t++) {
    if (r() < 0.3) working = Array.from({ length: 5 }, () => pick(files));
    const turn: Use[][] = [];
    const rounds = 1 + Math.floor(r() * 5);
    for (let k = 0; k < rounds; k++) {
      const wave: Use[] = [];
      const width = 1 + Math.floor(r() * 4);
      for (let w = 0; w < width; w++) {
        const x = r();
        const use = (name: string, input: Record<string, unknown>, durationMs: number): Use => ({ id: `toolu_${++id}`, name, input, durationMs });
        if (x < 0.55) wave.push(use('Read', { file_path: r() < 0.85 ? pick(working) : pick(files) }, 5 + r() * 60));
        else if (x < 0.65) wave.push(use('Glob', { pattern: pick(['src/**/*.ts', 'src/mod1/*', 'test/**']) }, 20 + r() * 40));
        else if (x < 0.75) wave.push(use('Grep', { pattern: pick(['TODO', 'export function', 'invoice']) }, 40 + r() * 200));
        else if (x < 0.95) wave.push(use('Edit', { file_path: pick(working), old_string: 'a', new_string: `b${id}` }, 10));
        else {
          const f = `src/new/file${id}.ts`;
          files.push(f);
          wave.push(use('Write', { file_path: f, content: 'x' }, 10));
        }
      }
      turn.push(wave);
    }
    session.push(turn);
  }
  return session;
}

interface ReplayResult {
  calls: number;
  cacheable: number;
  served: number;
  stale: number;
  savedMs: number;
}

/** The working directory of the synthetic agent: its relative paths name files under it. */
const SYNTHETIC_ROOT = '/repo';

/**
 * The same session with each file path spelled absolute (under {@link SYNTHETIC_ROOT}) or relative at random
 * (seeded): an agent whose tools mix the two kinds, which a cache without `cwd` cannot join exactly.
 */
function mixedSpellings(session: Session, seed = 11): Session {
  const r = rng(seed);
  const respell = (u: Use): Use => {
    const p = u.input.file_path;
    if (typeof p !== 'string' || p.startsWith('/') || r() < 0.5) return u;
    return { ...u, input: { ...u.input, file_path: `${SYNTHETIC_ROOT}/${p}` } };
  };
  return session.map((turn) => turn.map((wave) => wave.map(respell)));
}

/**
 * How a replay's cache is set up. `tools`: 'passthrough' leaves Bash and the other tools of the traces undeclared
 * and evicting nothing (`undeclared: 'passthrough'`: they cannot change the in-memory files here); 'family-write'
 * also declares Bash a write of the whole `file` family, the conservative policy for an agent whose shell may
 * edit files; 'default' is what a user who registers only the file tools gets (`undeclared: 'write'`: every other
 * tool, Bash, TodoWrite, Task…, is a write to everything); 'claude-code' is `registerAll(claudeCodeTools())` alone
 * (the default for Bash and the rest; Grep/Glob/LS tagged by their base directory). `cwd`: the cache's working directory (relative paths
 * of the replay name files under {@link SYNTHETIC_ROOT}).
 */
interface ReplaySetup {
  readonly tools?: 'passthrough' | 'family-write' | 'default' | 'claude-code';
  readonly cwd?: string;
}

/** The replay's own policies (every setup but 'claude-code'). */
function registerReplayTools(cache: ToolCache, tools: ReplaySetup['tools']): void {
  if (tools === 'family-write') cache.register('Bash', { writes: ['file'] });
  // Web tools: cached by URL/query; the replay's web never changes, so they cannot be stale.
  cache.register('WebFetch', { cacheable: true, ttl: { turns: 5 }, reads: ['web:*'] });
  cache.register('WebSearch', { cacheable: true, ttl: { turns: 5 }, reads: ['web:*'] });
  cache.register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: Record<string, unknown>) => [fileTag(pathOf(a))] });
  cache.register('LS', { cacheable: true, ttl: { turns: 5 }, reads: ['file:*'] });
  cache.register('Glob', { cacheable: true, ttl: { turns: 5 }, reads: ['file:*'] });
  cache.register('Grep', { cacheable: true, ttl: { turns: 5 }, reads: ['file:*'] });
  for (const w of WRITE_TOOLS) cache.register(w, { writes: ['file'], tags: (a: Record<string, unknown>) => [fileTag(pathOf(a))] });
}

/** Replays `session` against an in-memory file system (see {@link ReplaySetup}). */
async function replay(session: Session, setup: ReplaySetup = {}): Promise<ReplayResult> {
  const fs = new Map<string, number>();
  const tools = setup.tools ?? 'passthrough';
  const cache = new ToolCache({
    ...(tools === 'default' || tools === 'claude-code' ? {} : { undeclared: 'passthrough' as const }),
    ...(setup.cwd === undefined ? {} : { cwd: setup.cwd }),
  });
  if (tools === 'claude-code') cache.registerAll(claudeCodeTools());
  else registerReplayTools(cache, tools);

  // One name per file, whichever kind of path spells it (the replay's working directory is SYNTHETIC_ROOT).
  const norm = (p: string) => fileTag(p.startsWith('/') ? p : `${SYNTHETIC_ROOT}/${p}`).slice('file:'.length);
  // What a listing or search sees: the files under its base directory when that is absolute (Grep/LS: `path`;
  // Glob: its pattern's directory part, under `path`), so a hit is judged against the files it could have seen.
  // A relative base is judged against every file unless the cache is told the working directory (the traces'
  // is not recorded).
  const under = (u: Use): string[] => {
    const base = searchBase(u.input, u.name === 'Glob');
    if (!base.startsWith('/') && setup.cwd === undefined) return [...fs.keys()].sort();
    const dir = norm(base);
    return [...fs.keys()].filter((p) => p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`)).sort();
  };
  const truth = (u: Use): string => {
    switch (u.name) {
      case 'Read':
        return `${norm(pathOf(u.input))}@${fs.get(norm(pathOf(u.input))) ?? 'missing'}`;
      case 'Glob':
      case 'LS':
        return `${String(u.input.pattern ?? '')}: ${under(u).join(' ')}`;
      case 'WebFetch':
      case 'WebSearch':
        return `${u.name} ${canonicalJson(u.input)}: fixed`;
      case 'Grep':
        return `${String(u.input.pattern ?? '')}: ${under(u)
          .map((p) => `${p}@${fs.get(p)}`)
          .join(' ')}`;
      default:
        return 'ok';
    }
  };
  const run = async (u: Use) => {
    if (WRITE_TOOLS.has(u.name)) {
      const p = norm(pathOf(u.input));
      fs.set(p, (fs.get(p) ?? 0) + 1);
    }
    return { content: truth(u), ...(u.durationMs === undefined ? {} : { durationMs: u.durationMs }) };
  };

  // What every completed write left behind: a hit is stale when it is older than this state as of the call's start.
  const committed = new Map<string, number>();
  const isStale = (u: Use, text: string, atStart: ReadonlyMap<string, number>): boolean => {
    if (u.name === 'Read') {
      const [p, v] = text.split('@') as [string, string];
      return (atStart.get(p) ?? 0) > (v === 'missing' ? 0 : Number(v));
    }
    if (u.name.startsWith('Web')) return text !== truth(u);
    const listed = text
      .slice(text.indexOf(': ') + 2)
      .split(' ')
      .filter(Boolean);
    if (u.name === 'Grep') {
      const seen = new Map(listed.map((t) => t.split('@') as [string, string]).map(([p, v]) => [p, Number(v)]));
      return under(u).some((p) => (seen.get(p) ?? 0) < (atStart.get(p) ?? 0));
    }
    const present = new Set(listed);
    return under(u).some((p) => atStart.has(p) && !present.has(p)); // Glob/LS: every committed file under its base is listed
  };

  let calls = 0;
  let cacheable = 0;
  let served = 0;
  let stale = 0;
  for (const turn of session) {
    cache.advanceTurn();
    for (const wave of turn) {
      await Promise.all(
        wave.map(async (u) => {
          calls++;
          if (READ_TOOLS.has(u.name)) cacheable++;
          const atStart = new Map(committed);
          const r: ToolCallResult = await cache.call(u.name, u.input, () => run(u), { scope: 'replay', callId: u.id });
          if (WRITE_TOOLS.has(u.name)) {
            const p = norm(pathOf(u.input));
            committed.set(p, Math.max(committed.get(p) ?? 0, Number(fs.get(p))));
          }
          if (r.cache.type !== 'hit') return;
          served++;
          if (isStale(u, String(r.content).replace(/\n\[cached\]$/, ''), atStart)) stale++;
        }),
      );
    }
  }
  return { calls, cacheable, served, stale, savedMs: cache.stats().timeSavedMs };
}

function fixtureSessions(): Array<{ name: string; session: Session }> {
  const dir = join(import.meta.dirname, '..', '..', 'fixtures');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const out: Array<{ name: string; session: Session }> = [];
  for (const f of files.sort()) {
    try {
      const session = parseTrace(readFileSync(join(dir, f), 'utf8'));
      const uses = session.flat(2).filter((u) => READ_TOOLS.has(u.name) || WRITE_TOOLS.has(u.name));
      if (uses.length > 0) out.push({ name: f, session });
    } catch {
      // Not a trace this bench understands; skip it rather than fail the bench table.
    }
  }
  return out;
}

function replayRows(name: string, r: ReplayResult): Row[] {
  const pct = (n: number, d: number) => Number(((100 * n) / Math.max(1, d)).toFixed(1));
  return [
    { name: `toolcache replay ${name}: tool calls`, value: r.calls },
    { name: `toolcache replay ${name}: served from cache`, value: pct(r.served, r.calls), unit: '% of all calls', baseline: `${r.served} of ${r.calls}` },
    { name: `toolcache replay ${name}: served, of cacheable reads`, value: pct(r.served, r.cacheable), unit: '%', baseline: `${r.served} of ${r.cacheable}` },
    { name: `toolcache replay ${name}: stale hits`, value: r.stale, unit: 'hits', baseline: 'must be 0' },
    { name: `toolcache replay ${name}: tool time saved`, value: Math.round(r.savedMs), unit: 'ms' },
  ];
}

function sum(rs: readonly ReplayResult[]): ReplayResult {
  return rs.reduce((a, r) => ({
    calls: a.calls + r.calls,
    cacheable: a.cacheable + r.cacheable,
    served: a.served + r.served,
    stale: a.stale + r.stale,
    savedMs: a.savedMs + r.savedMs,
  }));
}

export default async function bench(): Promise<Row[]> {
  const rows = [...(await smallHits()), ...(await setCosts()), ...(await hitOverhead())];
  const fixtures = fixtureSessions();
  if (fixtures.length > 0) {
    const coding = fixtures.find((f) => f.name === 'coding.jsonl');
    if (coding !== undefined) rows.push(...replayRows('fixtures/coding.jsonl', await replay(coding.session)));
    const all = `fixtures/*.jsonl (${fixtures.length} traces)`;
    const results = await Promise.all(fixtures.map((f) => replay(f.session)));
    rows.push(...replayRows(all, sum(results)));
    const conservative = await Promise.all(fixtures.map((f) => replay(f.session, { tools: 'family-write' })));
    rows.push(...replayRows(`${all}, Bash declared a family write`, sum(conservative)).slice(1, 4));
    const undeclared = await Promise.all(fixtures.map((f) => replay(f.session, { tools: 'default' })));
    rows.push(...replayRows(`${all}, other tools left undeclared (the default: writes to everything)`, sum(undeclared)).slice(1, 4));
    const preset = await Promise.all(fixtures.map((f) => replay(f.session, { tools: 'claude-code' })));
    rows.push(...replayRows(`${all}, registerAll(claudeCodeTools()) (Bash and the rest undeclared)`, sum(preset)).slice(1, 4));
  }
  rows.push(...replayRows('synthetic (seed 7, 120 turns)', await replay(syntheticSession())));
  const mixed = mixedSpellings(syntheticSession());
  rows.push(...replayRows('synthetic, paths spelled absolute or relative at random', await replay(mixed)).slice(1, 4));
  rows.push(...replayRows(`synthetic, paths spelled absolute or relative, cwd ${SYNTHETIC_ROOT}`, await replay(mixed, { cwd: SYNTHETIC_ROOT })).slice(1, 4));
  const withPreset = await replay(mixed, { cwd: SYNTHETIC_ROOT, tools: 'claude-code' });
  rows.push(...replayRows(`synthetic, paths spelled absolute or relative, cwd ${SYNTHETIC_ROOT}, registerAll(claudeCodeTools())`, withPreset).slice(1, 4));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await bench()) console.log(`${row.name}: ${row.value}${row.unit ? ` ${row.unit}` : ''}${row.baseline ? ` (${row.baseline})` : ''}`);
}

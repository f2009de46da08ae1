/**
 * The whole per-request step a loop pays, against session length (issue 14).
 *
 * A 5,000-request coding session from the trace generator, with realistic
 * payloads: the generator's tool results (code, listings, logs, test and
 * compiler output, web pages; median ~300 characters, heavy tail to 870k) and
 * one result in eight rewritten, at the same length, as JSON, base64, CJK
 * text or a mix (code with a base64 tail, a log with a JSON dump, markdown with
 * a CJK summary). For every request it times:
 *
 *   append  the edits since the previous request (the response and its tool
 *           results, a new user turn, a tail): appendResponse, appendToolResults…
 *   render  render(state) + toAnthropic(rendered): the request
 *   step    append + render: what the loop pays per request (wall and CPU time)
 *
 * and, on the same requests in a second replay of each run (their garbage would
 * otherwise be collected during the next step), only in the 50-request windows
 * the per-length figures read:
 *
 *   passes  render of a shallow copy of the state (per-state caches miss;
 *           token counts stay memoized per block): the passes alone
 *   naive   a renderer that only maps the state to messages and marks the last block
 *   stringify  JSON.stringify of the request (what sending it costs anyway)
 *
 * Two settings: compaction on (claude-sonnet-4-6, 200k window) and off (a 1M
 * window, `compact: { enabled: false }`: every block stays, ~20k blocks at the
 * end). Each setting is replayed RUNS times (one warm-up first); a figure is
 * the median over the runs of the per-run value, with the range (min–max) of
 * the runs beside it. Per-request cost at length L is the median over the 50
 * requests ending at L. Heap is measured after a forced GC at each length, in
 * a separate untimed replay, which also gives the bytes allocated per request
 * (a sampling heap profile that keeps collected objects).
 *
 * Growth, two ways. The previous figure divides the medians of the 50 requests
 * ending at 5,000 and at 50: different requests, bringing different payloads
 * (what a request brings is counted once, and dominates its cost), so it moved
 * 0.48–1.89 between runs of the same code. The target figure replays the same
 * GROWTH_WINDOW (100) requests, from another session of the generator, after
 * each length (forked at the first user turn once that many requests were
 * made; ids renamed, times shifted, texts tagged so each fork counts its
 * payloads afresh), in GROWTH_ROUNDS (3) interleaved rounds, and divides their
 * median steps: cost against history length with what the requests bring held
 * fixed and the machine's load drift spread over every length.
 *
 * GC: scavenges per 100 requests in the step replay (PerformanceObserver
 * 'gc'), and the share of the top 1 % of steps (CPU) during which one started.
 * The one-open-turn and economy settings also give the bytes the scavenges of
 * the whole replay promoted per request (v8.GCProfiler: the old and
 * large-object spaces' growth across each scavenge).
 *
 * One open turn (issue 14, a long tool loop): the same step on a session that
 * is ONE user message followed by 5,000 rounds (the generator's rounds:
 * parallel calls, thinking, the same payload mix; a new tail before every
 * request), compaction on (the model's own window) and off (1M, disabled), on
 * claude-sonnet-4-6 and on claude-sonnet-5-5 (binds thinking: the sent tail is
 * folded into the history, render/bind.ts). Growth the same way: the same
 * GROWTH_WINDOW rounds of another single-turn session replayed after each
 * length, continuing the open turn (forked after a round was answered).
 * BENCH_STEP_SINGLE=0 skips it; BENCH_STEP_SINGLE_RUNS sets its runs (default RUNS);
 * BENCH_STEP_MULTI=0 runs only it.
 *
 * Economy (issue 14): the same growth figures with `policy: 'economy'` (prunes while warm when the gate says
 * so, dedupes repeated results, weighs re-use), on one open turn and on the multi-turn session, compaction on
 * and off, on both models. BENCH_STEP_ECONOMY=0 skips it; BENCH_STEP_ECONOMY_RUNS sets its runs (default
 * RUNS); BENCH_STEP_ECONOMY_SHAPES (single,multi), BENCH_STEP_ECONOMY_MODELS and BENCH_STEP_ECONOMY_MODES (on,off:
 * compaction) pick what runs.
 *
 * Run: `npm run bench -- step` or `npx tsx test/bench/step.ts`.
 */
import type { ContentBlockParam, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { streamLength } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, HUGE_TEXT, tiktokenCounter, type TokenCounter } from '../../src/tokens/counter.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { payload, type PayloadKind } from '../../src/synthetic/payloads.js';
import { Rng } from '../../src/synthetic/rng.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { Session as InspectorSession } from 'node:inspector';
import { GCProfiler } from 'node:v8';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { threadClock, threadClockName } from './thread-clock.js';
import { consume, forceGc, formatRows, isMain, median, percentile, sig, type Row } from './util.js';

const REQUESTS = Number(process.env.BENCH_STEP_REQUESTS ?? 5_000);
const RUNS = Number(process.env.BENCH_STEP_RUNS ?? 3);
const WINDOW = 50;
const LENGTHS = [50, 500, 1_000, 2_000, 3_000, 4_000, 5_000].filter((n) => n <= REQUESTS);

// THE SESSION

const REWRITE: readonly PayloadKind[] = ['json', 'base64', 'cjk', 'code+base64', 'log+json', 'markdown+cjk'];

/** The generator's session with one tool result in eight rewritten as another payload kind of the same length. */
export function stepTrace(requests = REQUESTS, seed = 'bench-step'): TraceEvent[] {
  return rewritePayloads(generateTrace({ seed, profile: 'coding', requests, hides: false }), seed);
}

/**
 * One user message, then `requests` tool rounds of one open turn (a tail before each request), payloads as
 * {@link stepTrace}'s. The turn stays open: its final answer (and the tail before it) is left out, so a window of
 * rounds can continue it even at the end.
 */
export function singleTurnTrace(requests = REQUESTS, seed = 'bench-step-single', model = 'claude-sonnet-4-6'): TraceEvent[] {
  const n = requests + 1;
  const events = generateTrace({ seed, profile: 'coding', requests: n, rounds: { median: n, min: n, max: n }, tail: true, hides: false, model });
  const end = events.findLastIndex((e) => e.type === 'tail');
  return rewritePayloads(events.slice(0, end), seed);
}

function rewritePayloads(events: readonly TraceEvent[], seed: string): TraceEvent[] {
  const rng = new Rng(`${seed}-payloads`);
  let n = 0;
  return events.map((e) => {
    if (e.type !== 'tool_results') return e;
    const content = e.content.map((b) => {
      if (b.type !== 'tool_result' || typeof b.content !== 'string' || b.content.length < 40 || !rng.chance(1 / 8)) return b;
      return { ...b, content: payload(rng.pick(REWRITE), b.content.length, n++) };
    });
    return { ...e, content } as TraceEvent;
  });
}

/** Payload characters of the session by kind (for the header line). */
function resultSizes(events: readonly TraceEvent[]): number[] {
  const out: number[] = [];
  for (const e of events)
    if (e.type === 'tool_results')
      for (const b of e.content) if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content.length : JSON.stringify(b.content).length);
  return out;
}

// THE NAIVE RENDERER

/** Maps the state to a request with no passes: every block as is, one marker on the last block. */
export function naiveRender(state: TimelineState): { system: TextBlockParam[]; tools: unknown[]; messages: MessageParam[] } {
  const messages: MessageParam[] = [];
  for (const turn of state.turns) {
    messages.push({ role: 'user', content: turn.user.map((b) => b.param) });
    for (const round of turn.rounds) {
      messages.push({ role: 'assistant', content: round.response.map((b) => b.param) });
      if (round.results.length > 0) messages.push({ role: 'user', content: round.results.map((b) => b.param) });
    }
  }
  if (state.tail.length > 0) messages.push({ role: 'user', content: state.tail.map((b) => b.param) as ContentBlockParam[] } as MessageParam);
  const last = messages.at(-1);
  if (last && Array.isArray(last.content) && last.content.length > 0) {
    const content = [...(last.content as ContentBlockParam[])];
    content[content.length - 1] = { ...content.at(-1)!, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
    messages[messages.length - 1] = { ...last, content } as MessageParam;
  }
  return {
    system: state.envelope.instructions.map((b) => b.param as TextBlockParam),
    tools: state.envelope.tools.map((t) => t.tool),
    messages,
  };
}

// ONE REPLAY

interface Timing {
  append: number;
  render: number;
  passes: number;
  naive: number;
  stringify: number;
  blocks: number;
  /** CPU time of the step (append + render + toAnthropic), ns: what the process spent, not waiting for a core. */
  cpu: number;
  /** Characters of the longest tool result appended since the previous request (0: none). */
  newResult: number;
  /** performance.now() when the request's step ended (ms): a GC that starts after the previous one's end ran during it. */
  end: number;
  /** CPU time (ns) of the step spent counting texts of COUNTED_FROM characters or more (BENCH_STEP_TOP only; else 0). */
  count: number;
  /** CPU time (ns) of the step's toAnthropic (BENCH_STEP_TOP only; else 0). */
  map: number;
  /** CPU time (ns) of the step's append (the edits since the previous request). */
  appendCpu: number;
}

/** The p99 diagnostics (BENCH_STEP_TOP): the counter and the mapping timed apart, the top 1 % dumped. */
const TOP = Boolean(process.env.BENCH_STEP_TOP);
/** Texts from this many characters are timed when counted (BENCH_STEP_TOP): shorter ones cost less than the timer. */
const COUNTED_FROM = 256;
/** CPU time (ns) the counter of {@link countingTimed} spent since the bench last reset it. */
let countCpu = 0;

/**
 * The default counter, its counts and estimates of texts of COUNTED_FROM characters or more timed in CPU time
 * (BENCH_STEP_TOP: the top-1 % diagnostics split a step into counting and the rest). Else the default counter itself,
 * so the headline figures carry no timer.
 */
function countingTimed(): TokenCounter {
  const base = tiktokenCounter();
  if (!process.env.BENCH_STEP_TOP) return base;
  const timed =
    (f: (text: string) => number) =>
    (text: string): number => {
      if (text.length < COUNTED_FROM) return f(text);
      const c0 = cpuNs();
      const n = f(text);
      countCpu += cpuNs() - c0;
      return n;
    };
  return { name: base.name, count: timed(base.count), ...(base.estimate ? { estimate: timed(base.estimate) } : {}) };
}

const ns = (t0: bigint): number => Number(process.hrtime.bigint() - t0);
/** Whether request number `n` (1-based) is in one of the windows the per-length figures are read from. */
const inWindow = (n: number): boolean => LENGTHS.some((l) => n > l - WINDOW && n <= l);
/**
 * CPU time so far, ns: the process's (user + system, µs resolution), or the main thread's where there is a thread
 * clock (Node ≥ 23.9, or BENCH_THREAD_CLOCK=1: test/bench/thread-clock.ts). The process's bills V8's helper threads
 * to whichever step they ran beside: in the top 1 % that is 1.2-3 × the main thread's (docs/benchmarks.md, tail17).
 */
const cpuNs: () => number =
  threadClock() ??
  ((): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
  });

/** Applies an event that is not a model response (envelope, user turn, tool results, tail). */
export function applyEvent(state: TimelineState | undefined, e: TraceEvent): TimelineState | undefined {
  switch (e.type) {
    case 'envelope': {
      const input = { instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}), model: e.model ?? 'claude-sonnet-4-6' };
      return state ? setEnvelope(state, input) : createTimeline(input);
    }
    case 'user':
      return startTurn(state!, e.content, e.at);
    case 'tool_results': {
      const results = e.content.filter((b) => b.type === 'tool_result').map(({ duration_ms: _d, ...b }) => b);
      const texts = e.content.filter((b) => b.type === 'text');
      return appendToolResults(state!, results as never, texts as never, e.at);
    }
    case 'tail':
      return setTail(state!, e.content);
    default:
      return state;
  }
}

/** Where a replay starts when it continues a session (the window replays): its state, token cache and clock. */
interface Start {
  state: TimelineState;
  tokens: BlockTokenCache;
  lastAt: number;
}

/**
 * Replays the session; per request, the timings above. With `heapAt`, no
 * timing: a forced GC and the heap at those request counts instead. With
 * `start`, the events continue that state (a window replayed after some history).
 */
function replayOnce(
  events: readonly TraceEvent[],
  options: Omit<RenderOptions, 'now' | 'tokens'>,
  heapAt?: ReadonlySet<number>,
  extras = false,
  start?: Start,
  /** Called once, after the first request's step (outside it): where a sampled window starts (see replayForks). */
  afterFirst?: () => void,
): { timings: Timing[]; heap: Map<number, number> } {
  const tokens = start?.tokens ?? new BlockTokenCache(countingTimed());
  const timings: Timing[] = [];
  countCpu = 0;
  const heap = new Map<number, number>();
  let state: TimelineState | undefined = start?.state;
  let lastAt = start?.lastAt ?? 0;
  let appendNs = 0;
  let appendCpu = 0;
  let newResult = 0;
  // The longest result each tool_results event brings, computed outside the timed step.
  const longest = new Map<TraceEvent, number>();
  for (const e of events) if (e.type === 'tool_results') longest.set(e, Math.max(0, ...resultSizes([e])));
  for (const e of events) {
    if (e.type === 'tool_results') newResult = Math.max(newResult, longest.get(e)!);
    const t0 = process.hrtime.bigint();
    const c0 = cpuNs();
    if (e.type === 'assistant') {
      appendNs += ns(t0);
      appendCpu += cpuNs() - c0;
      const opts = { ...options, now: lastAt, tokens };
      if (heapAt) {
        const r = render(state!, opts);
        consume(toAnthropic(r));
        if (heapAt.has(timings.length + 1)) {
          forceGc();
          heap.set(timings.length + 1, process.memoryUsage().heapUsed);
        }
        timings.push({
          append: 0,
          render: 0,
          passes: 0,
          naive: 0,
          stringify: 0,
          blocks: streamLength(r),
          cpu: 0,
          newResult,
          end: 0,
          count: 0,
          map: 0,
          appendCpu: 0,
        });
        newResult = 0;
        state = appendResponse(r.state, e.content, e.at);
        continue;
      }
      const rc0 = cpuNs();
      const r0 = process.hrtime.bigint();
      const rendered = render(state!, opts);
      const mc0 = TOP ? cpuNs() : 0;
      const params = toAnthropic(rendered);
      const map = TOP ? cpuNs() - mc0 : 0;
      const renderNs = ns(r0);
      const renderCpu = cpuNs() - rc0;
      const end = performance.now();
      const count = countCpu;
      // Outside the step, in a replay of their own and only in the windows the figures read
      // (stringify of a 1M-window request takes tens of ms): the same request again from a shallow
      // copy of the state (per-state caches miss), the naive renderer, and JSON.stringify.
      let passesNs = Number.NaN;
      let naiveNs = Number.NaN;
      let stringifyNs = Number.NaN;
      if (extras && inWindow(timings.length + 1)) {
        const p0 = process.hrtime.bigint();
        consume(toAnthropic(render({ ...state! }, opts)));
        passesNs = ns(p0);
        const n0 = process.hrtime.bigint();
        consume(naiveRender(state!));
        naiveNs = ns(n0);
        const s0 = process.hrtime.bigint();
        consume(JSON.stringify(params));
        stringifyNs = ns(s0);
      }
      const ac0 = cpuNs();
      const a0 = process.hrtime.bigint();
      state = appendResponse(rendered.state, e.content, e.at);
      timings.push({
        append: appendNs,
        render: renderNs,
        passes: passesNs,
        naive: naiveNs,
        stringify: stringifyNs,
        blocks: streamLength(rendered),
        cpu: appendCpu + renderCpu,
        newResult,
        end,
        count,
        map,
        appendCpu,
      });
      newResult = 0;
      // The comparisons above count nothing new (the same blocks, memoized); the next step's counting starts here.
      countCpu = 0;
      appendNs = ns(a0);
      appendCpu = cpuNs() - ac0;
      if (timings.length === 1) afterFirst?.();
      continue;
    }
    state = applyEvent(state, e);
    appendNs += ns(t0);
    appendCpu += cpuNs() - c0;
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return { timings, heap };
}

// THE SAME REQUESTS AT EVERY LENGTH

/** Requests of the window replayed after each length. */
const GROWTH_WINDOW = 100;

/**
 * The window: the first GROWTH_WINDOW requests of another session of the same
 * generator (its own seed), from its first user turn (envelope left out), so
 * it can continue any state at a turn boundary.
 */
function windowEvents(): TraceEvent[] {
  const events = stepTrace(GROWTH_WINDOW + 50, 'bench-step-window');
  const out: TraceEvent[] = [];
  let n = 0;
  for (let i = events.findIndex((e) => e.type === 'user'); i < events.length && n < GROWTH_WINDOW; i++) {
    const e = events[i]!;
    if (e.type === 'envelope') continue;
    out.push(e);
    if (e.type === 'assistant') n++;
  }
  return out;
}

/**
 * The window as replayed after one length: every time shifted so its first
 * user turn comes when the session's next one would; tool ids renamed (no
 * clash with the history); and every text tagged with the fork, so no fork
 * finds another's payloads in the token counter's memo by text: each fork
 * counts what its requests bring, exactly as the first one does.
 */
export function forkOf(window: readonly TraceEvent[], fork: number, firstAt: number): TraceEvent[] {
  const tag = `#f${String(fork).padStart(5, '0')}`;
  const shift = firstAt - (window.find((e) => 'at' in e && typeof e.at === 'number') as { at: number }).at;
  const block = (b: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...b };
    if (typeof out.text === 'string') out.text = `${out.text} ${tag}`;
    if (typeof out.thinking === 'string') out.thinking = `${out.thinking} ${tag}`;
    if (out.type === 'tool_use') {
      out.id = `${out.id}${tag.slice(1)}`;
      out.input = { ...(out.input as object), fork: tag };
    }
    if (out.type === 'tool_result') {
      out.tool_use_id = `${out.tool_use_id}${tag.slice(1)}`;
      if (typeof out.content === 'string') out.content = `${out.content} ${tag}`;
      else if (Array.isArray(out.content)) out.content = out.content.map((c) => block(c as Record<string, unknown>));
    }
    return out;
  };
  return window.map((e) => {
    const copy = { ...e } as Record<string, unknown>;
    if (typeof copy.at === 'number') copy.at = (copy.at as number) + shift;
    if (Array.isArray(copy.content)) copy.content = (copy.content as Record<string, unknown>[]).map(block);
    return copy as unknown as TraceEvent;
  });
}

/** Rounds of window replays per run: each round replays the window after every length in turn. */
const GROWTH_ROUNDS = 3;

/**
 * The same window of requests continued from the session at each length (at
 * the first user turn once that many requests were made), then dropped
 * (states are immutable: each replay is a branch). The session is replayed
 * once, untimed, keeping its state at each length; then the window is
 * replayed after every length in turn, GROWTH_ROUNDS times, so a change of the
 * machine's load during the run falls on every length alike. Per length, the
 * timings of the window's requests over all rounds.
 */
function replayForks(
  events: readonly TraceEvent[],
  window: readonly TraceEvent[],
  options: Omit<RenderOptions, 'now' | 'tokens'>,
  /** Where a fork may start: a user turn (default), or the tail before a request (one open turn: after a round). */
  boundary: 'user' | 'tail' = 'user',
): Map<number, ForkFigures> {
  const tokens = new BlockTokenCache();
  const forks: { length: number; after: number; start: Start; firstAt: number }[] = [];
  const pending = [...LENGTHS];
  let state: TimelineState | undefined;
  let lastAt = 0;
  let requests = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === boundary && pending.length > 0 && requests >= pending[0]!) {
      // The window's first timed event comes when the session's next one would.
      const next = events.slice(i).find((x) => 'at' in x && typeof x.at === 'number') as { at: number } | undefined;
      forks.push({ length: pending.shift()!, after: requests, start: { state: state!, tokens, lastAt }, firstAt: next?.at ?? lastAt + 60_000 });
    }
    if (e.type === 'assistant') {
      const r = render(state!, { ...options, now: lastAt, tokens });
      consume(toAnthropic(r));
      state = appendResponse(r.state, e.content, e.at);
      requests++;
      continue;
    }
    state = applyEvent(state, e);
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  // A length the session reached only at its end: the window continues the final state.
  if (pending.length > 0 && pending[0]! <= requests && state) {
    forks.push({ length: pending.shift()!, after: requests, start: { state, tokens, lastAt }, firstAt: lastAt + 60_000 });
  }
  const out = new Map<number, ForkFigures>();
  for (const f of forks) out.set(f.length, { after: f.after, timings: [], spans: [], allocated: Number.NaN });
  let n = 0;
  for (let round = 0; round < GROWTH_ROUNDS; round++) {
    for (const f of forks) {
      const fork = forkOf(window, ++n, f.firstAt);
      const figures = out.get(f.length)!;
      const t0 = performance.now();
      figures.timings.push(...replayOnce(fork, options, undefined, false, f.start).timings);
      figures.spans.push([t0, performance.now()]);
    }
  }
  // Untimed, once more per length: the bytes each request of the window allocates, sampled from its second request on
  // (the first walks the re-use model over the whole session: a fork is a new branch, which a live session never is).
  for (const f of forks) {
    let sampler: Sampler | undefined;
    const timings = replayOnce(forkOf(window, ++n, f.firstAt), options, undefined, false, f.start, () => {
      sampler = sampleAllocation();
    }).timings;
    out.get(f.length)!.allocated = (sampler?.stop() ?? Number.NaN) / (timings.length - 1);
  }
  return out;
}

/** The window replayed after one length: its timings over all rounds, when each replay ran, and what it allocates. */
interface ForkFigures {
  after: number;
  timings: Timing[];
  /** [start, end] of each timed replay (performance.now, ms): the GCs that started in them are the window's. */
  spans: [number, number][];
  /** Bytes allocated per request of the window, its first request left out (one sampled, untimed replay). */
  allocated: number;
}

// GC AND ALLOCATION

/** Scavenges (young-generation GCs) and other GCs, by start time (performance.now, ms), observed from now on. */
function watchGc(): { stop: () => Promise<GcSeen> } {
  const minor: number[] = [];
  const minorMs: number[] = [];
  const major: number[] = [];
  const majorMs: number[] = [];
  let pauseMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
        minor.push(entry.startTime);
        minorMs.push(entry.duration);
      } else {
        major.push(entry.startTime);
        majorMs.push(entry.duration);
      }
      pauseMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    // GC entries are delivered from the event loop: let it turn before reading them.
    stop: async () => {
      await new Promise((r) => setTimeout(r, 20));
      observer.disconnect();
      return { minor, minorMs, major, majorMs, pauseMs };
    },
  };
}

/** GCs seen by {@link watchGc}: start times (performance.now, ms), and each scavenge's pause (ms). */
interface GcSeen {
  minor: number[];
  minorMs: number[];
  major: number[];
  majorMs: number[];
  pauseMs: number;
}

/** Scavenges that started in the spans (performance.now, ms): how many, and their pauses (ms). */
function scavengesIn(gc: GcSeen, spans: readonly (readonly [number, number])[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < gc.minor.length; i++) if (spans.some(([a, b]) => gc.minor[i]! >= a && gc.minor[i]! <= b)) out.push(gc.minorMs[i]!);
  return out;
}

/**
 * Bytes the scavenges promote to the old generation from now on: per scavenge, what the old and large-object spaces
 * grew by across it (v8.GCProfiler's heap statistics before and after each GC). What survives a scavenge twice is
 * promoted; a per-request object that lives that long (kept by a memo, see src/internal/recent.ts) costs its copy
 * twice and then stays until a full GC.
 */
function watchPromotion(): { stop: () => { bytes: number; scavenges: number } } {
  const profiler = new GCProfiler();
  profiler.start();
  const old = (s: { heapSpaceStatistics: readonly { spaceName: string; spaceUsedSize: number }[] }) =>
    s.heapSpaceStatistics.reduce((n, x) => (x.spaceName === 'old_space' || x.spaceName === 'large_object_space' ? n + x.spaceUsedSize : n), 0);
  return {
    stop: () => {
      let bytes = 0;
      let scavenges = 0;
      for (const g of profiler.stop()?.statistics ?? []) {
        if (g.gcType !== 'Scavenge') continue;
        scavenges++;
        bytes += old(g.afterGC) - old(g.beforeGC);
      }
      return { bytes, scavenges };
    },
  };
}

interface Sampler {
  /** Stops sampling; the bytes allocated since it started (an estimate, ±a few %). */
  stop: () => number;
}

/**
 * Starts a sampling heap profile that keeps what GC collected, so its samples are what was allocated. Synchronous:
 * an inspector session of this thread answers in the call.
 */
function sampleAllocation(interval = 8_192): Sampler {
  const session = new InspectorSession();
  session.connect();
  let answer: unknown;
  const post = (method: string, params: object = {}): unknown => {
    session.post(method, params, (err, res) => {
      if (err) throw err;
      answer = res;
    });
    return answer;
  };
  post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return {
    stop: () => {
      try {
        const { profile } = post('HeapProfiler.stopSampling') as { profile: { samples: { size: number }[] } };
        return profile.samples.reduce((sum, s) => sum + s.size, 0);
      } finally {
        session.disconnect();
      }
    },
  };
}

/** Bytes a function allocates (a sampling heap profile that keeps what GC collected: an estimate, ±a few %). */
function allocated(fn: () => void): number {
  const sampler = sampleAllocation(16_384);
  try {
    fn();
  } catch (err) {
    sampler.stop();
    throw err;
  }
  return sampler.stop();
}

// FIGURES

interface RunFigures {
  /** Per length: median step, render, append, passes, naive, stringify (ns) over the 50 requests ending there. */
  at: Map<number, { step: number; render: number; append: number; passes: number; naive: number; stringify: number; blocks: number; cpu: number }>;
  stepMedian: number;
  stepP99: number;
  stepMax: number;
  /** The same in CPU time (a loaded machine's waits for a core left out). */
  cpuMedian: number;
  cpuP99: number;
  /** Share of all requests that bring a result of more than HUGE_TEXT characters (its tokens are estimated). */
  bigShare: number;
  /** Share of the requests at or above the CPU p99 that bring such a result. */
  topBigShare: number;
  /** Scavenges per 100 requests during the step replay, and share of the requests at or above the CPU p99 during which one started. */
  scavenges: number;
  topGcShare: number;
  /** Per length: median step and CPU (ns) of the same GROWTH_WINDOW requests replayed after that many requests. */
  forks: Map<number, { step: number; cpu: number; after: number }>;
}

/** The requests during whose step a GC (of `starts`, performance.now ms) started. */
function withGc(timings: readonly Timing[], starts: readonly number[]): Set<Timing> {
  const out = new Set<Timing>();
  const sorted = [...starts].sort((a, b) => a - b);
  let k = 0;
  for (let i = 0; i < timings.length; i++) {
    const from = i > 0 ? timings[i - 1]!.end : Number.NEGATIVE_INFINITY;
    while (k < sorted.length && sorted[k]! <= from) k++;
    if (k < sorted.length && sorted[k]! <= timings[i]!.end) out.add(timings[i]!);
  }
  return out;
}

function figures(timings: readonly Timing[], gc: GcSeen, forks: Map<number, ForkFigures>): RunFigures {
  const at = new Map<number, RunFigures['at'] extends Map<number, infer V> ? V : never>();
  for (const n of LENGTHS) {
    const w = timings.slice(Math.max(0, n - WINDOW), n);
    at.set(n, {
      step: median(w.map((t) => t.append + t.render)),
      render: median(w.map((t) => t.render)),
      append: median(w.map((t) => t.append)),
      passes: median(w.map((t) => t.passes)),
      naive: median(w.map((t) => t.naive)),
      stringify: median(w.map((t) => t.stringify)),
      blocks: w.at(-1)!.blocks,
      cpu: median(w.map((t) => t.cpu)),
    });
  }
  const steps = timings.map((t) => t.append + t.render);
  const cpu = timings.map((t) => t.cpu);
  const top = timings.filter((t) => t.cpu >= percentile(cpu, 99));
  const scavenged = withGc(timings, gc.minor);
  if (TOP) dumpTop(timings, scavenged, withGc(timings, gc.major), gcPauses(timings, gc));
  const forkFigures = new Map<number, { step: number; cpu: number; after: number }>();
  for (const [n, f] of forks)
    forkFigures.set(n, { step: median(f.timings.map((t) => t.append + t.render)), cpu: median(f.timings.map((t) => t.cpu)), after: f.after });
  return {
    at,
    stepMedian: median(steps),
    stepP99: percentile(steps, 99),
    stepMax: Math.max(...steps),
    cpuMedian: median(cpu),
    cpuP99: percentile(cpu, 99),
    bigShare: timings.filter((t) => t.newResult > HUGE_TEXT).length / timings.length,
    topBigShare: top.filter((t) => t.newResult > HUGE_TEXT).length / Math.max(1, top.length),
    scavenges: (100 * gc.minor.length) / timings.length,
    topGcShare: top.filter((t) => scavenged.has(t)).length / Math.max(1, top.length),
    forks: forkFigures,
  };
}

/** Per request, the GC pauses (ms, wall: the main thread's) of the GCs that started during its step. */
function gcPauses(timings: readonly Timing[], gc: GcSeen): Map<Timing, number> {
  const all = [...gc.minor.map((at, i) => [at, gc.minorMs[i]!]), ...gc.major.map((at, i) => [at, gc.majorMs[i]!])].sort((a, b) => a[0]! - b[0]!);
  const out = new Map<Timing, number>();
  let k = 0;
  for (let i = 0; i < timings.length; i++) {
    const from = i > 0 ? timings[i - 1]!.end : Number.NEGATIVE_INFINITY;
    while (k < all.length && all[k]![0]! <= from) k++;
    for (; k < all.length && all[k]![0]! <= timings[i]!.end; k++) out.set(timings[i]!, (out.get(timings[i]!) ?? 0) + all[k]![1]!);
  }
  return out;
}

/**
 * Diagnostics (BENCH_STEP_TOP=1, to stderr): the CPU percentiles of the step and of the step less its counting
 * (CPU time inside the counter for texts of COUNTED_FROM characters or more: what the step would be with a counter
 * that costs nothing there), the top 1 % by kind (a scavenge started during it; a major GC or an incremental marking
 * step did; its stream shrank: a compaction or prune; else counting took half of it or more; else other), and for
 * each request at or above the CPU p99 its CPU time, its counting's, the longest new result, whether a scavenge or a
 * major GC started during it and whether its stream shrank.
 *
 * The p99's parts (issue 14): the top 1 % and 2 % by phase (CPU of the append, the counting, the rest of render, the
 * mapping; and the GC pauses that started in them, wall); how many requests' counting alone exceeds 2 and 3 × the
 * median step (when that is over 1 % of the requests, counting by itself puts the p99 above that multiple); and the
 * step less its counting on the requests without a GC and whose stream did not shrink (the passes' own spread).
 * CPU time is the process's: V8's helper threads (concurrent marking, the scavenger's helpers, the compiler) are
 * billed to whichever step they run in; Node 20 has no per-thread clock (see docs/benchmarks.md, tail17).
 */
function dumpTop(timings: readonly Timing[], scavenged: Set<Timing>, major: Set<Timing>, pauses: Map<Timing, number>): void {
  const cpu = timings.map((t) => t.cpu);
  const rest = timings.map((t) => t.cpu - t.count);
  const pct = (xs: readonly number[]) => [50, 90, 95, 98, 99, 99.5, 99.9].map((q) => `p${q} ${Math.round(percentile(xs, q) / 1000)}`).join(', ');
  const ratio = (xs: readonly number[]) => sig(percentile(xs, 99) / median(xs), 3);
  const counting = timings.reduce((n, t) => n + t.count, 0) / timings.reduce((n, t) => n + t.cpu, 0);
  process.stderr.write(`step CPU µs: ${pct(cpu)}; p99 ÷ median ${ratio(cpu)}\n`);
  process.stderr.write(`step CPU less counting µs: ${pct(rest)}; p99 ÷ median ${ratio(rest)}; counting ${Math.round(100 * counting)} % of step CPU\n`);
  const p99 = percentile(cpu, 99);
  const top = timings.map((t, i) => ({ t, i })).filter(({ t }) => t.cpu >= p99);
  const kind = ({ t, i }: { t: Timing; i: number }) =>
    scavenged.has(t)
      ? 'scavenge'
      : major.has(t)
        ? 'major GC'
        : i > 0 && t.blocks < timings[i - 1]!.blocks
          ? 'shrank'
          : 2 * t.count >= t.cpu
            ? 'counting'
            : 'other';
  const kinds = new Map<string, number>();
  for (const x of top) kinds.set(kind(x), (kinds.get(kind(x)) ?? 0) + 1);
  process.stderr.write(`top 1 % (${top.length}): ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}\n`);
  const rows = top
    .sort((a, b) => b.t.cpu - a.t.cpu)
    .map(({ t, i }) => {
      const shrank = i > 0 && t.blocks < timings[i - 1]!.blocks;
      return `  #${i + 1} ${Math.round(t.cpu / 1000)} µs (counting ${Math.round(t.count / 1000)}), result ${t.newResult}${scavenged.has(t) ? ', scavenge' : ''}${major.has(t) ? ', major GC' : ''}${shrank ? ', shrank' : ''}`;
    });
  process.stderr.write(`${rows.join('\n')}\n`);
  const mid = median(cpu);
  for (const q of [99, 98]) {
    const cut = percentile(cpu, q);
    const slow = timings.filter((t) => t.cpu >= cut);
    const sum = (f: (t: Timing) => number) => slow.reduce((n, t) => n + f(t), 0);
    const all = sum((t) => t.cpu);
    const share = (f: (t: Timing) => number) => `${Math.round((100 * sum(f)) / all)} %`;
    process.stderr.write(
      `top ${100 - q} % (${slow.length}, CPU ≥ ${sig(cut / mid, 3)} × median) by phase: append ${share((t) => t.appendCpu)}, counting ${share((t) => t.count)}, ` +
        `render less counting ${share((t) => t.cpu - t.appendCpu - t.count - t.map)}, toAnthropic ${share((t) => t.map)}; ` +
        `GC pauses ${sig(
          sum((t) => pauses.get(t) ?? 0),
          3,
        )} ms (wall) against ${sig(all / 1e6, 3)} ms CPU\n`,
    );
  }
  const over = (k: number) => {
    const n = timings.filter((t) => t.count > k * mid).length;
    return `${n} (${sig((100 * n) / timings.length, 2)} %)`;
  };
  process.stderr.write(`requests whose counting alone exceeds 2 × the median step: ${over(2)}; 3 ×: ${over(3)}\n`);
  const calm = timings.filter((t, i) => !pauses.has(t) && !(i > 0 && t.blocks < timings[i - 1]!.blocks)).map((t) => t.cpu - t.count);
  process.stderr.write(`step CPU less counting, requests without a GC or a shrink (${calm.length}): ${pct(calm)}; p99 ÷ median ${ratio(calm)}\n`);
}

/** `median (min–max)` of per-run values. */
function spread(xs: readonly number[], scale = 1, digits = 3): { value: number; range: string } {
  const v = xs.map((x) => x * scale);
  return { value: sig(median(v), digits), range: `${sig(Math.min(...v), digits)}–${sig(Math.max(...v), digits)}` };
}

let curve = '';

async function setting(label: string, events: readonly TraceEvent[], options: Omit<RenderOptions, 'now' | 'tokens'>): Promise<Row[]> {
  replayOnce(events.slice(0, Math.min(events.length, 2_000)), options); // warm-up: JIT, the rank table
  const runs: RunFigures[] = [];
  const window = windowEvents();
  for (let i = 0; i < RUNS; i++) {
    // The step in a replay of its own: the comparisons allocate a lot (the naive renderer and
    // stringify build whole requests), and their garbage would be collected during the next step.
    const gc = watchGc();
    const steps = replayOnce(events, options).timings;
    const seen = await gc.stop();
    const others = replayOnce(events, options, undefined, true).timings;
    const forks = replayForks(events, window, options);
    runs.push(
      figures(
        steps.map((t, k) => ({ ...t, passes: others[k]!.passes, naive: others[k]!.naive, stringify: others[k]!.stringify })),
        seen,
        forks,
      ),
    );
  }
  // Heap after a forced GC at each length, and what the whole replay allocates (sampled), in one untimed replay.
  let heap = new Map<number, number>();
  const bytes = allocated(() => {
    heap = replayOnce(events, options, new Set(LENGTHS)).heap;
  });
  const first = LENGTHS[0]!;
  const last = LENGTHS.at(-1)!;
  const us = 1 / 1000;
  const ratio = (f: (r: RunFigures) => number) => spread(runs.map(f));
  const growth = ratio((r) => r.at.get(last)!.step / r.at.get(first)!.step);
  const sameGrowth = ratio((r) => r.forks.get(last)!.step / r.forks.get(first)!.step);
  const sameCpuGrowth = ratio((r) => r.forks.get(last)!.cpu / r.forks.get(first)!.cpu);
  const scavenges = ratio((r) => r.scavenges);
  const topGc = spread(
    runs.map((r) => r.topGcShare),
    100,
  );
  const cpuGrowth = ratio((r) => r.at.get(last)!.cpu / r.at.get(first)!.cpu);
  const renderGrowth = ratio((r) => r.at.get(last)!.render / r.at.get(first)!.render);
  const appendGrowth = ratio((r) => r.at.get(last)!.append / r.at.get(first)!.append);
  const p99 = ratio((r) => r.stepP99 / r.stepMedian);
  const cpuP99 = ratio((r) => r.cpuP99 / r.cpuMedian);
  const topBig = spread(
    runs.map((r) => r.topBigShare),
    100,
  );
  const big = spread(
    runs.map((r) => r.bigShare),
    100,
  );
  const cpuMedian = spread(
    runs.map((r) => r.cpuMedian),
    us,
  );
  const cpuP99Abs = spread(
    runs.map((r) => r.cpuP99),
    us,
  );
  const vsNaive = ratio((r) => r.at.get(last)!.render / r.at.get(last)!.naive);
  const stepVsNaive = ratio((r) => r.at.get(last)!.step / r.at.get(last)!.naive);
  const passesVsNaive = ratio((r) => r.at.get(last)!.passes / r.at.get(last)!.naive);
  const vsStringify = ratio((r) => r.at.get(last)!.render / r.at.get(last)!.stringify);
  const stepFirst = spread(
    runs.map((r) => r.at.get(first)!.step),
    us,
  );
  const stepLast = spread(
    runs.map((r) => r.at.get(last)!.step),
    us,
  );
  const blocks = runs[0]!.at.get(last)!.blocks;

  // The curve: per length, median over runs of each figure, µs; heap MB.
  const lines = [
    `${label}: per-request cost (µs, median of the 50 requests ending there; median over ${RUNS} runs) and heap`,
    '',
    `(window step: the same ${GROWTH_WINDOW} requests of another session replayed after that many requests, ${GROWTH_ROUNDS} rounds, median step, wall and CPU)`,
    '',
    '| requests | blocks | step | step CPU | window step | window CPU | append | render | passes only | naive | stringify | heap MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const n of LENGTHS) {
    const m = (f: (x: NonNullable<ReturnType<RunFigures['at']['get']>>) => number) => sig(median(runs.map((r) => f(r.at.get(n)!))) / 1000, 3);
    const w = (f: (x: NonNullable<ReturnType<RunFigures['forks']['get']>>) => number) =>
      runs.every((r) => r.forks.has(n)) ? sig(median(runs.map((r) => f(r.forks.get(n)!))) / 1000, 3) : '–';
    lines.push(
      `| ${n} | ${runs[0]!.at.get(n)!.blocks} | ${m((x) => x.step)} | ${m((x) => x.cpu)} | ${w((x) => x.step)} | ${w((x) => x.cpu)} | ${m((x) => x.append)} | ${m((x) => x.render)} | ${m((x) => x.passes)} | ${m((x) => x.naive)} | ${m((x) => x.stringify)} | ${sig((heap.get(n) ?? Number.NaN) / 1e6, 3)} |`,
    );
  }
  curve += `${lines.join('\n')}\n\n`;

  return [
    { name: `${label}: step at ${first} requests`, value: stepFirst.value, unit: 'µs', baseline: `runs ${stepFirst.range}` },
    { name: `${label}: step at ${last} requests (${blocks} blocks)`, value: stepLast.value, unit: 'µs', baseline: `runs ${stepLast.range}` },
    {
      name: `${label}: step growth, same ${GROWTH_WINDOW} requests after ${last} ÷ after ${first}`,
      value: sameGrowth.value,
      unit: 'ratio',
      baseline: `runs ${sameGrowth.range}; target ≤ 1.5; CPU ${sameCpuGrowth.value} (runs ${sameCpuGrowth.range})`,
    },
    {
      name: `${label}: step growth, ${WINDOW} requests ending at ${last} ÷ at ${first} (different requests)`,
      value: growth.value,
      unit: 'ratio',
      baseline: `runs ${growth.range}; the previous figure`,
    },
    { name: `${label}: step growth in CPU time, ${last} ÷ ${first}`, value: cpuGrowth.value, unit: 'ratio', baseline: `runs ${cpuGrowth.range}` },
    { name: `${label}: render growth, ${last} ÷ ${first}`, value: renderGrowth.value, unit: 'ratio', baseline: `runs ${renderGrowth.range}` },
    { name: `${label}: append growth, ${last} ÷ ${first}`, value: appendGrowth.value, unit: 'ratio', baseline: `runs ${appendGrowth.range}` },
    { name: `${label}: step p99 ÷ median (all requests)`, value: p99.value, unit: 'ratio', baseline: `runs ${p99.range}; target ≤ 3` },
    {
      name: `${label}: step p99 ÷ median in CPU time`,
      value: cpuP99.value,
      unit: 'ratio',
      baseline: `runs ${cpuP99.range}; median step ${cpuMedian.value} µs CPU (runs ${cpuMedian.range}), p99 ${cpuP99Abs.value} µs (runs ${cpuP99Abs.range})`,
    },
    {
      // What the top 1 % is made of: requests whose new result is estimated (the rest are mostly GC).
      name: `${label}: top 1 % (CPU) bringing a result > ${HUGE_TEXT} chars`,
      value: topBig.value,
      unit: '%',
      baseline: `runs ${topBig.range}; of all requests ${big.value} % (runs ${big.range})`,
    },
    {
      name: `${label}: top 1 % (CPU) during which a scavenge started`,
      value: topGc.value,
      unit: '%',
      baseline: `runs ${topGc.range}`,
    },
    { name: `${label}: scavenges per 100 requests (step replay)`, value: scavenges.value, unit: 'per 100', baseline: `runs ${scavenges.range}` },
    {
      name: `${label}: allocated per request (sampled heap profile, whole replay)`,
      value: sig(bytes / REQUESTS / 1000, 3),
      unit: 'KB',
      baseline: `${sig(bytes / 1e6, 3)} MB over ${REQUESTS} requests (one replay)`,
    },
    {
      name: `${label}: step ÷ naive renderer at ${last}`,
      value: stepVsNaive.value,
      unit: 'ratio',
      baseline: `runs ${stepVsNaive.range}; target ≤ 1.5 (compaction off)`,
    },
    { name: `${label}: render ÷ naive renderer at ${last}`, value: vsNaive.value, unit: 'ratio', baseline: `runs ${vsNaive.range}` },
    { name: `${label}: passes only ÷ naive renderer at ${last}`, value: passesVsNaive.value, unit: 'ratio', baseline: `runs ${passesVsNaive.range}` },
    { name: `${label}: render ÷ JSON.stringify at ${last}`, value: vsStringify.value, unit: 'ratio', baseline: `runs ${vsStringify.range}` },
  ];
}

// ONE OPEN TURN

const SINGLE = process.env.BENCH_STEP_SINGLE !== '0';
const SINGLE_RUNS = Number(process.env.BENCH_STEP_SINGLE_RUNS ?? RUNS);

/** The window of the single-turn replays: GROWTH_WINDOW rounds of another single-turn session, from its first tail. */
function singleWindowEvents(model: string): TraceEvent[] {
  const events = singleTurnTrace(GROWTH_WINDOW + 50, 'bench-step-single-window', model);
  const out: TraceEvent[] = [];
  let n = 0;
  for (let i = events.findIndex((e) => e.type === 'tail'); i < events.length && n < GROWTH_WINDOW; i++) {
    const e = events[i]!;
    out.push(e);
    if (e.type === 'assistant') n++;
  }
  return out;
}

let singleCurve = '';

/**
 * One open turn: the step per request (median of the 50 ending at each length) and the same-requests growth,
 * over SINGLE_RUNS runs (one warm-up first). No comparisons, no heap: the multi-turn settings have them.
 */
async function singleTurnSetting(label: string, model: string, options: Omit<RenderOptions, 'now' | 'tokens'>): Promise<Row[]> {
  const out = await growthSetting(
    label,
    singleTurnTrace(REQUESTS, 'bench-step-single', model),
    singleWindowEvents(model),
    options,
    'tail',
    SINGLE_RUNS,
    'rounds',
  );
  singleCurve += out.curve;
  return out.rows;
}

/**
 * The step per request (median of the 50 ending at each length) and the same-requests growth of one session
 * (the window replayed after each length, forked at `boundary`), over `runs` runs (one warm-up first). No
 * comparisons, no heap: the multi-turn settings have them. Returns the rows and the curve table.
 */
async function growthSetting(
  label: string,
  events: readonly TraceEvent[],
  window: readonly TraceEvent[],
  options: Omit<RenderOptions, 'now' | 'tokens'>,
  boundary: 'user' | 'tail',
  runCount: number,
  unit: 'rounds' | 'requests',
): Promise<{ rows: Row[]; curve: string }> {
  replayOnce(events.slice(0, Math.min(events.length, 2_000)), options); // warm-up
  const runs: {
    at: Map<number, { step: number; cpu: number; render: number; append: number; blocks: number }>;
    forks: Map<number, { step: number; cpu: number; allocated: number; scavenges: number[] }>;
    /** The whole replay: CPU p99 ÷ median of the step, and its scavenges' pauses (ms). */
    cpuP99: number;
    scavenges: number[];
    requests: number;
    /** Bytes the whole replay's scavenges promoted. */
    promoted: number;
  }[] = [];
  for (let i = 0; i < runCount; i++) {
    const gc = watchGc();
    const promotion = watchPromotion();
    const timings = replayOnce(events, options).timings;
    const promoted = promotion.stop().bytes;
    const seen = await gc.stop();
    const forkGc = watchGc();
    const forks = replayForks(events, window, options, boundary);
    const forkSeen = await forkGc.stop();
    const at = new Map<number, { step: number; cpu: number; render: number; append: number; blocks: number }>();
    for (const n of LENGTHS) {
      const w = timings.slice(Math.max(0, n - WINDOW), n);
      at.set(n, {
        step: median(w.map((t) => t.append + t.render)),
        cpu: median(w.map((t) => t.cpu)),
        render: median(w.map((t) => t.render)),
        append: median(w.map((t) => t.append)),
        blocks: w.at(-1)!.blocks,
      });
    }
    const forkFigures = new Map<number, { step: number; cpu: number; allocated: number; scavenges: number[] }>();
    for (const [n, f] of forks)
      forkFigures.set(n, {
        step: median(f.timings.map((t) => t.append + t.render)),
        cpu: median(f.timings.map((t) => t.cpu)),
        allocated: f.allocated,
        scavenges: scavengesIn(forkSeen, f.spans),
      });
    const cpu = timings.map((t) => t.cpu);
    runs.push({ at, forks: forkFigures, cpuP99: percentile(cpu, 99) / median(cpu), scavenges: seen.minorMs, requests: timings.length, promoted });
  }
  const first = LENGTHS[0]!;
  const last = LENGTHS.at(-1)!;
  const ratio = (f: (r: (typeof runs)[number]) => number) => spread(runs.map(f));
  const same = ratio((r) => r.forks.get(last)!.step / r.forks.get(first)!.step);
  const sameCpu = ratio((r) => r.forks.get(last)!.cpu / r.forks.get(first)!.cpu);
  const growth = ratio((r) => r.at.get(last)!.step / r.at.get(first)!.step);
  const renderGrowth = ratio((r) => r.at.get(last)!.render / r.at.get(first)!.render);
  const appendGrowth = ratio((r) => r.at.get(last)!.append / r.at.get(first)!.append);
  const us = (f: (r: (typeof runs)[number]) => number) => spread(runs.map(f), 1 / 1000);
  const stepFirst = us((r) => r.forks.get(first)!.step);
  const stepLast = us((r) => r.forks.get(last)!.step);
  const kb = (f: (r: (typeof runs)[number]) => number) => spread(runs.map(f), 1 / 1000);
  const allocFirst = kb((r) => r.forks.get(first)!.allocated);
  const allocLast = kb((r) => r.forks.get(last)!.allocated);
  const allocGrowth = ratio((r) => r.forks.get(last)!.allocated / r.forks.get(first)!.allocated);
  // Scavenges of the window per 100 of its requests (over all rounds), and their median pause.
  const perHundred = (n: number) => (r: (typeof runs)[number]) => (100 * r.forks.get(n)!.scavenges.length) / (GROWTH_ROUNDS * GROWTH_WINDOW);
  const gcFirst = ratio(perHundred(first));
  const gcLast = ratio(perHundred(last));
  const pause = (n: number) => (r: (typeof runs)[number]) => (r.forks.get(n)!.scavenges.length > 0 ? median(r.forks.get(n)!.scavenges) : 0);
  const pauseFirst = ratio(pause(first));
  const pauseLast = ratio(pause(last));
  const cpuP99 = ratio((r) => r.cpuP99);
  const replayGc = ratio((r) => (100 * r.scavenges.length) / r.requests);
  const replayPause = ratio((r) => median(r.scavenges));
  const replayPauseMax = ratio((r) => Math.max(...r.scavenges));
  const promotedKb = kb((r) => r.promoted / r.requests);
  const promotedEach = ratio((r) => r.promoted / Math.max(1, r.scavenges.length) / 1e6);
  const lines = [
    `${label}: per-request cost (µs, median of the 50 requests ending there, and of the same ${GROWTH_WINDOW} ${unit} replayed after that many; median over ${runCount} runs)`,
    '',
    `| ${unit} | blocks | step | step CPU | window step | window CPU | window KB per request | window scavenges per 100 | append | render |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const n of LENGTHS) {
    const m = (f: (x: NonNullable<ReturnType<(typeof runs)[number]['at']['get']>>) => number) => sig(median(runs.map((r) => f(r.at.get(n)!))) / 1000, 3);
    const w = (f: (x: { step: number; cpu: number; allocated: number; scavenges: number[] }) => number, scale = 1000) =>
      runs.every((r) => r.forks.has(n)) ? sig(median(runs.map((r) => f(r.forks.get(n)!))) / scale, 3) : '–';
    lines.push(
      `| ${n} | ${runs[0]!.at.get(n)!.blocks} | ${m((x) => x.step)} | ${m((x) => x.cpu)} | ${w((x) => x.step)} | ${w((x) => x.cpu)} | ${w((x) => x.allocated)} | ${w((x) => (100 * x.scavenges.length) / (GROWTH_ROUNDS * GROWTH_WINDOW), 1)} | ${m((x) => x.append)} | ${m((x) => x.render)} |`,
    );
  }
  const curve = `${lines.join('\n')}\n\n`;
  const rows: Row[] = [
    {
      name: `${label}: window step after ${first} → after ${last} ${unit}`,
      value: stepLast.value,
      unit: 'µs',
      baseline: `after ${first}: ${stepFirst.value} (runs ${stepFirst.range}); after ${last}: runs ${stepLast.range}`,
    },
    {
      name: `${label}: step growth, same ${GROWTH_WINDOW} ${unit} after ${last} ÷ after ${first}`,
      value: same.value,
      unit: 'ratio',
      baseline: `runs ${same.range}; target ≤ 1.5; CPU ${sameCpu.value} (runs ${sameCpu.range})`,
    },
    {
      name: `${label}: step growth, ${WINDOW} ${unit} ending at ${last} ÷ at ${first} (different requests)`,
      value: growth.value,
      unit: 'ratio',
      baseline: `runs ${growth.range}`,
    },
    { name: `${label}: render growth, ${last} ÷ ${first}`, value: renderGrowth.value, unit: 'ratio', baseline: `runs ${renderGrowth.range}` },
    { name: `${label}: append growth, ${last} ÷ ${first}`, value: appendGrowth.value, unit: 'ratio', baseline: `runs ${appendGrowth.range}` },
    {
      name: `${label}: allocated per request, same ${GROWTH_WINDOW} ${unit} after ${last} ÷ after ${first}`,
      value: allocGrowth.value,
      unit: 'ratio',
      baseline: `runs ${allocGrowth.range}; after ${first} ${allocFirst.value} KB (runs ${allocFirst.range}), after ${last} ${allocLast.value} KB (runs ${allocLast.range})`,
    },
    {
      name: `${label}: scavenges per 100 ${unit} of the window, after ${first} → after ${last}`,
      value: gcLast.value,
      unit: 'per 100',
      baseline: `after ${first} ${gcFirst.value} (runs ${gcFirst.range}), after ${last} runs ${gcLast.range}; median pause ${pauseFirst.value} → ${pauseLast.value} ms (runs ${pauseFirst.range} → ${pauseLast.range})`,
    },
    {
      name: `${label}: step p99 ÷ median in CPU time (all ${unit})`,
      value: cpuP99.value,
      unit: 'ratio',
      baseline: `runs ${cpuP99.range}; target ≤ 3; scavenges per 100 ${replayGc.value} (runs ${replayGc.range}), pause median ${replayPause.value} ms (runs ${replayPause.range}), max ${replayPauseMax.value} ms (runs ${replayPauseMax.range})`,
    },
    {
      name: `${label}: promoted by scavenges per ${unit.replace(/s$/, '')} (all ${unit})`,
      value: promotedKb.value,
      unit: 'KB',
      baseline: `runs ${promotedKb.range}; ${promotedEach.value} MB per scavenge (runs ${promotedEach.range})`,
    },
  ];
  return { rows, curve };
}

/** The four single-turn settings: two models, compaction on (the model's window) and off (1M, disabled). */
async function singleTurn(): Promise<Row[]> {
  singleCurve = '';
  if (!SINGLE) return [];
  const rows: Row[] = [];
  for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5-5']) {
    rows.push(...(await singleTurnSetting(`one open turn, ${model}, compaction on`, model, { profile: resolveProfile(model) })));
    rows.push(
      ...(await singleTurnSetting(`one open turn, ${model}, compaction off (1M)`, model, {
        profile: { ...resolveProfile(model), contextWindow: 1_000_000 },
        compact: { enabled: false },
      })),
    );
  }
  return rows;
}

// THE ECONOMY POLICY

const ECONOMY = process.env.BENCH_STEP_ECONOMY !== '0';
const ECONOMY_RUNS = Number(process.env.BENCH_STEP_ECONOMY_RUNS ?? RUNS);
/** Which economy shapes run (BENCH_STEP_ECONOMY_SHAPES, comma-separated: single, multi; default both). */
const ECONOMY_SHAPES = new Set((process.env.BENCH_STEP_ECONOMY_SHAPES ?? 'single,multi').split(','));
/** Which models the economy part runs on (BENCH_STEP_ECONOMY_MODELS, comma-separated; default both). */
const ECONOMY_MODELS = (process.env.BENCH_STEP_ECONOMY_MODELS ?? 'claude-sonnet-4-6,claude-sonnet-5-5').split(',');
/** Which compaction modes the economy part runs (BENCH_STEP_ECONOMY_MODES, comma-separated: on, off; default both). */
const ECONOMY_MODES = new Set((process.env.BENCH_STEP_ECONOMY_MODES ?? 'on,off').split(','));

let economyCurve = '';

/**
 * The economy policy (`policy: 'economy'`: prunes while warm when the gate says so, dedupes, weighs re-use),
 * the same growth figures as the one-open-turn part: one open turn (forked after a round) and the multi-turn
 * session (forked at a user turn), compaction on and off, on each model.
 */
async function economy(): Promise<Row[]> {
  economyCurve = '';
  if (!ECONOMY) return [];
  const rows: Row[] = [];
  for (const model of ECONOMY_MODELS) {
    const settings: [string, Omit<RenderOptions, 'now' | 'tokens'>][] = [];
    if (ECONOMY_MODES.has('on')) settings.push(['compaction on', { profile: resolveProfile(model), policy: 'economy' }]);
    if (ECONOMY_MODES.has('off'))
      settings.push([
        'compaction off (1M)',
        { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, compact: { enabled: false }, policy: 'economy' },
      ]);
    for (const [mode, options] of settings) {
      if (ECONOMY_SHAPES.has('single')) {
        const out = await growthSetting(
          `economy, one open turn, ${model}, ${mode}`,
          singleTurnTrace(REQUESTS, 'bench-step-single', model),
          singleWindowEvents(model),
          options,
          'tail',
          ECONOMY_RUNS,
          'rounds',
        );
        rows.push(...out.rows);
        economyCurve += out.curve;
      }
      if (ECONOMY_SHAPES.has('multi')) {
        const out = await growthSetting(`economy, multi-turn, ${model}, ${mode}`, stepTrace(), windowEvents(), options, 'user', ECONOMY_RUNS, 'requests');
        rows.push(...out.rows);
        economyCurve += out.curve;
      }
    }
  }
  return rows;
}

export default async function bench(): Promise<Row[]> {
  curve = '';
  const events = stepTrace();
  const sizes = resultSizes(events);
  const header: Row = {
    name: 'session',
    value: REQUESTS,
    unit: 'requests',
    baseline: `${sizes.length} tool results: median ${median(sizes)} chars, p90 ${Math.round(percentile(sizes, 90))}, max ${Math.max(...sizes)}; 1 in 8 rewritten as JSON/base64/CJK/mixed; ${RUNS} runs + warm-up; CPU figures: ${threadClockName}`,
  };
  // BENCH_STEP_MULTI=0: only the one-open-turn and economy parts (their figures alone, faster).
  const multi = process.env.BENCH_STEP_MULTI !== '0';
  const on = multi ? await setting('compaction on', events, {}) : [];
  const off = multi ? await setting('compaction off (1M)', events, ONE_M) : [];
  return [header, ...on, ...off, ...(await singleTurn()), ...(await economy())];
}

/** A 1M-token window with compaction off: every block stays in the request. */
const ONE_M: Omit<RenderOptions, 'now' | 'tokens'> = {
  profile: { ...resolveProfile('claude-sonnet-4-6'), contextWindow: 1_000_000 },
  compact: { enabled: false },
};

export function details(): string {
  return `${curve}${singleCurve}${economyCurve}`.trimEnd();
}

if (isMain(import.meta.url)) {
  console.log(formatRows(await bench()));
  console.log(`\n${details()}`);
}

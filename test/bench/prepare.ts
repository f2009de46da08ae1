/**
 * `prepare` per request against the Session path on the same session (issue
 * 10: ≤ 1.2×, i.e. the message mapping is incremental, not a rebuild).
 *
 * Two baselines, both reported:
 *  - **Session step** (the comparison we hold the target to): the per-request
 *    work a Session-path user pays: the timeline appends since the previous
 *    request (the response, its tool results, a new turn, a tail) + render +
 *    pendingOf + toAnthropic. prepare does exactly this work too (it maps the
 *    new messages with the same appends), plus finding what is new and the
 *    store round trip.
 *  - **render + toAnthropic** alone: the literal wording. It leaves out
 *    the appends, which prepare cannot leave out, so it overstates the ratio.
 *
 * The drop-in side is a plain loop: one `messages` array it pushes to, the
 * in-memory conversation store, and its `system` / `tools` either kept (the
 * same objects while they do not change, as a loop with `const tools = […]`),
 * rebuilt for every request (every object and string new, as a JSON parse
 * gives them: no identity shortcut, a structural compare of everything; made
 * ahead of the run, or right before each call), or re-mapped for every
 * request (new tool and block objects around the loop's own schemas and
 * strings). All four are reported (see LOOPS).
 *
 * The machine is shared (5 processes on 2 cores), so the two sides run in
 * lockstep: one replay of the fixture drives both, request by request; a load
 * burst then hits both sides of the same request, not one side's whole pass.
 * The side that goes second gets warm code and data from the first (up to
 * ×0.25 on the ratio, in either direction, depending on which requests are
 * dear), so which side goes first alternates per request and flips every
 * run: each request is measured equally often in both orders (exactly with
 * an even number of runs). Neither side shares work with the other: each has
 * its own token cache (a count the other side made is not a free lookup) and
 * its own parse of the fixture (no string hashed or flattened by the other
 * side), as a Session-path process and a drop-in process would. Time is this
 * process's CPU time (not wall time, which counts time we were not
 * scheduled). Each fixture is replayed RUNS times from scratch after
 * warm-up replays of WARMUP requests in all (the code at its steady state, as
 * in a process that has served a few thousand requests). The figure divides the sums over requests of each request's
 * median time over the runs (prepare ÷ baseline); beside it, the median and
 * range of the per-run ratios (total prepare time ÷ total baseline time of one
 * run) and `best-of` (the sums of each request's fastest time).
 */
import type { MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import type { ConversationRecord } from '../../src/conversation/types.js';
import { prepare } from '../../src/conversation/prepare.js';
import { stripCacheControl, toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { pendingOf } from '../../src/session/stats.js';
import { DEFAULT_VERIFY_RECENT, firstMismatchIndexed } from '../../src/conversation/mapping.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { forkOf } from './step.js';
import { cachepointMiddleware } from '../../src/integrations/ai-sdk/middleware.js';
import { toAnthropicPrompt } from '../../src/integrations/ai-sdk/to-anthropic.js';
import type { CallOptions } from '../../src/integrations/ai-sdk/types.js';
import { fixtureTexts, median, parseFixture, sig, times, type Row } from './util.js';

const FIXTURES = ['coding', 'research', 'long-idle', 'volatile-tail'];

/** What the drop-in loop sends per request: the system and tools a Session render produced, markers stripped. */
type Envelope = { system: unknown; tools: unknown };

function strip(b: object): object {
  if (!('duration_ms' in b)) return b;
  const { duration_ms: _d, ...rest } = b as { duration_ms: number };
  return rest;
}

/**
 * CPU time of this process in ns (user + system). Not wall time: 5 helpers
 * share 2 cores here, and wall time counts the time we were not scheduled.
 */
function clock(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** Both doors' state between two requests (a user turn next), to continue from: a fork of the session. */
interface Start {
  readonly state: TimelineState;
  readonly record: ConversationRecord;
  /** The loop's messages (the same objects: the next request re-sends them). */
  readonly messages: readonly MessageParam[];
  readonly tail?: TextBlockParam[];
  readonly lastAt: number;
  readonly sessionTokens: BlockTokenCache;
  readonly prepareTokens: BlockTokenCache;
  /** The system and tools the loop sent last (kept: the same objects). */
  readonly envelope: Envelope | undefined;
}

/** Per-request times of one replay (ns, one entry per request). */
interface Times {
  /** render + pendingOf + toAnthropic: the literal baseline. */
  render: number[];
  /** The per-request work of a Session-path user: the appends since the previous request + render + pendingOf + toAnthropic. */
  step: number[];
  /** prepare(params) of a plain loop (its own message pushes are not timed). */
  prepare: number[];
  envelopes: Envelope[];
}

/**
 * Replays a fixture through both doors at once. `envelopes` (per request) are
 * what the plain loop sends as system and tools; without them only the Session
 * side runs (to collect them). `loopEvents` is the loop's own parse of the
 * same fixture (its messages share no object with the Session side); `flip`
 * (0 or 1) says which side goes first on even requests.
 */
export async function lockstep(
  events: readonly TraceEvent[],
  model: string,
  envelopes?: readonly Envelope[],
  loopEvents: readonly TraceEvent[] = events,
  flip = 0,
  onPrepared?: (k: number, messages: readonly MessageParam[], store: MemoryConversationStore) => void,
  fork: { readonly from?: Start; readonly onUser?: (requests: number, snapshot: () => Start, at: number) => void } = {},
  /** What the loop makes of request k's system and tools right before it calls prepare (untimed): see LOOPS. */
  atRequest?: (env: Envelope) => Envelope,
): Promise<Times> {
  const out: Times = { render: [], step: [], prepare: [], envelopes: [] };
  const from = fork.from;
  // Session side.
  let state: TimelineState | undefined = from?.state;
  let appendNs = 0;
  // Drop-in side.
  const store = new MemoryConversationStore();
  if (from) store.saveSync(from.record, null);
  // One token cache per side, fresh per replay (or the one of the replay a fork continues): each side counts its own blocks, as it would alone.
  const sessionTokens = from?.sessionTokens ?? new BlockTokenCache();
  const prepareTokens = from?.prepareTokens ?? new BlockTokenCache();
  const messages: MessageParam[] = from ? [...from.messages] : [];
  let tail: TextBlockParam[] | undefined = from?.tail;
  let lastAt = from?.lastAt ?? 0;
  let k = 0;
  const snapshot = (): Start => ({
    state: state!,
    record: store.loadSync('bench')!,
    messages: [...messages],
    ...(tail !== undefined ? { tail } : {}),
    lastAt,
    sessionTokens,
    prepareTokens,
    envelope: envelopes?.[k - 1] ?? envelopes?.[0],
  });
  const sessionRequest = (e: TraceEvent & { type: 'assistant' }) => {
    const t1 = clock();
    const r = render(state!, { now: lastAt, tokens: sessionTokens });
    pendingOf(r);
    const params = toAnthropic(r, { max_tokens: 2048 });
    const ns = clock() - t1;
    out.render.push(ns);
    out.step.push(appendNs + ns);
    if (!envelopes) out.envelopes.push(stripCacheControl({ system: params.system, tools: params.tools }));
    const t2 = clock();
    state = appendResponse(r.state, e.content, e.at);
    appendNs = clock() - t2;
  };
  const prepareRequest = async (e: TraceEvent & { type: 'assistant' }) => {
    const env = atRequest ? atRequest(envelopes![k]!) : envelopes![k]!;
    const params = {
      model,
      max_tokens: 2048,
      ...(env.system ? { system: env.system as TextBlockParam[] } : {}),
      ...(env.tools ? { tools: env.tools as never } : {}),
      messages,
    };
    const t0 = clock();
    await prepare(params, { conversationId: 'bench', store, now: lastAt, render: { tokens: prepareTokens }, ...(tail !== undefined ? { tail } : {}) });
    out.prepare.push(clock() - t0);
    onPrepared?.(k, messages, store);
    messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
  };
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const le = loopEvents[i]! as typeof e; // the same event in the loop's own parse
    if (e.type === 'user' && k > 0) fork.onUser?.(k, snapshot, e.at);
    const t0 = clock();
    if (e.type === 'envelope') {
      const input = { instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}) };
      const m = e.model ?? state?.model ?? 'claude-sonnet-4-6';
      state = state ? setEnvelope(state, { ...input, model: m }) : createTimeline({ ...input, model: m });
    } else if (e.type === 'user') state = startTurn(state!, e.content, e.at);
    else if (e.type === 'tail') state = setTail(state!, e.content);
    else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result').map((b) => strip(b) as ToolResultBlockParam);
      state = appendToolResults(state!, results, e.content.filter((b) => b.type === 'text') as TextBlockParam[], e.at);
    }
    if (e.type !== 'assistant') appendNs += clock() - t0;
    // The plain loop's own bookkeeping (not timed: it does this with or without cachepoint).
    if (le.type === 'user') messages.push({ role: 'user', content: le.content as MessageParam['content'] });
    else if (le.type === 'tail') tail = le.content as TextBlockParam[];
    else if (le.type === 'tool_results') {
      messages.push({
        role: 'user',
        content: [...le.content.filter((b) => b.type === 'tool_result').map(strip), ...le.content.filter((b) => b.type === 'text')] as MessageParam['content'],
      });
    } else if (e.type === 'assistant') {
      if (!envelopes) sessionRequest(e);
      else if ((k + flip) % 2 === 0) {
        sessionRequest(e);
        await prepareRequest(le as typeof e);
      } else {
        await prepareRequest(le as typeof e);
        sessionRequest(e);
      }
      k++;
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return out;
}

// Even by default: each request is then measured equally often with either side first.
const RUNS = Number(process.env.BENCH_PREPARE_RUNS ?? 12);

/**
 * Requests replayed through both doors before the timed runs of each fixture
 * and loop kind (whole replays, at least one). One warm-up replay (the method
 * until 2026-11-30 19:30 UTC) timed the JIT's tier-up, not the per-request
 * cost: in a process that had replayed coding once, its render + toAnthropic
 * took ~110 µs per request, ~70 µs after 40 replays; and code that runs once
 * per request (prepare's own) is optimised later than the render's inner loops
 * that run many times per request, so the ratio measured the order in which V8
 * optimises them (coding kept ×1.26–1.32 after one replay, ×1.07–1.20 after
 * 40). Both sides warm up alike, in lockstep; the timed regions are unchanged.
 * `BENCH_PREPARE_WARMUP=1` gives the previous method.
 */
const WARMUP = Number(process.env.BENCH_PREPARE_WARMUP ?? 2000);

/**
 * Young-generation bytes allocated (and dropped) before each timed run, spread evenly over the runs: run `r` of `n`
 * starts `r / n` of YOUNG_SPAN into the young generation. Without it the scavenges were phase-locked to the
 * replay: every run allocates the same, each started right after a scavenge (the one at its end), so the next one
 * fell on the same request in every run (long-idle: request 98-100 in 12 of 12 runs, 5-60 ms of wall time with
 * the parallel scavenger's threads in this process's CPU time), and that request's median over the runs was a
 * scavenge: in the prepare door for a whole process (long-idle rebuilt ×1.61) or in the Session door (×1.07),
 * ×1.27 otherwise: the bimodality seen since prep8. Spread, a scavenge falls on a different request in each run
 * and the per-request median leaves it out, as it leaves out every other pause (the per-run ratios still count
 * them). 16 MB: V8's default semi-space size on 64-bit; a smaller young generation wraps around (a scavenge
 * during the filler, untimed). `BENCH_PREPARE_YOUNG_SPAN=0` gives the previous method.
 */
const YOUNG_SPAN = Number(process.env.BENCH_PREPARE_YOUNG_SPAN ?? 16 * 1024 * 1024);

/** Where {@link shiftYoungGeneration} leaves its last chunk (read nowhere: it keeps the allocations from being optimized away). */
let _filler: unknown;

/** Allocates `bytes` of short-lived young-generation data in 32 kB arrays (each below V8's large-object size). */
function shiftYoungGeneration(bytes: number): void {
  const chunk = 4096; // elements of 8 bytes
  for (let done = 0; done < bytes; done += chunk * 8) _filler = new Array(chunk).fill(done);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function range(xs: readonly number[]): string {
  return `×${sig(Math.min(...xs))}–${sig(Math.max(...xs))}`;
}

/** Sum over requests of each request's median time over the runs (a spike in one run moves it little). */
function medianOf(runs: readonly number[][]): number {
  return sum(runs[0]!.map((_, i) => median(runs.map((r) => r[i]!))));
}

/** Sum over requests of each request's fastest time over the runs. */
function bestOf(runs: readonly number[][]): number {
  return sum(runs[0]!.map((_, i) => Math.min(...runs.map((r) => r[i]!))));
}

/**
 * Growth (issue 14: the per-request step flat in session length). A long
 * generated coding session (GROWTH requests, compaction on, the loop keeps its
 * system/tools objects) through both doors in lockstep, as above.
 *
 * Two figures, as in test/bench/step.ts. The target one: **the same requests
 * at every length**: the first FORK_WINDOW (100) requests of another session
 * of the generator are replayed after each length (the session forked at its
 * first user turn once that many requests were made: the Session state, the
 * stored conversation record, the loop's messages array with the same
 * objects, each side's token cache; the window's ids renamed, times shifted and
 * texts tagged per fork by step.ts's `forkOf`, so each fork counts what its
 * requests bring afresh), FORK_ROUNDS (3) rounds over every length in turn (a
 * change of load falls on every length alike), both doors in lockstep (which
 * side goes first alternates per request and per fork). Per length the median
 * over those requests, per run; the figure is the median over GROWTH_RUNS runs
 * with the range. The previous figure (kept, printed after it) divides the
 * medians of the WINDOW requests ending at each length: different requests,
 * bringing different payloads (what a request brings dominates its cost).
 * Besides, `recognition` times one extra call of what prepare runs to
 * recognise the re-sent messages (firstMismatchIndexed over the stored index)
 * right after each prepare of the main replay, outside the timed regions: as
 * cold as prepare meets the history (the previous request's render ran since).
 * `BENCH_PREPARE_GROWTH=0` skips it.
 */
const GROWTH = Number(process.env.BENCH_PREPARE_GROWTH ?? 5000);
const GROWTH_RUNS = Number(process.env.BENCH_PREPARE_GROWTH_RUNS ?? 3);
const WINDOW = 50;
const FORK_WINDOW = 100;
const FORK_ROUNDS = 3;

/** The forks' window: the first FORK_WINDOW requests of another session, from its first user turn (envelope left out). */
function forkWindow(): TraceEvent[] {
  const events = generateTrace({ seed: 'bench-prepare-window', profile: 'coding', requests: FORK_WINDOW + 50, hides: false });
  const out: TraceEvent[] = [];
  let n = 0;
  for (let i = events.findIndex((e) => e.type === 'user'); i < events.length && n < FORK_WINDOW; i++) {
    const e = events[i]!;
    if (e.type === 'envelope' || e.type === 'hide') continue;
    out.push(e);
    if (e.type === 'assistant') n++;
  }
  return out;
}

async function growth(): Promise<Row[]> {
  const lengths = [WINDOW, 1000, 2500, GROWTH].filter((n, i, a) => n <= GROWTH && a.indexOf(n) === i);
  // A few requests past GROWTH, so that the session has a user turn to fork at after GROWTH requests.
  const trace = () =>
    generateTrace({ seed: 'bench-prepare-growth', profile: 'coding', requests: GROWTH + FORK_WINDOW, hides: false }).filter((e) => e.type !== 'hide');
  const events = trace();
  const loopEvents = trace();
  const window = forkWindow();
  const model = (events.find((e) => e.type === 'envelope') as { model?: string } | undefined)?.model ?? 'claude-sonnet-4-6';
  // The loop's system/tools: the Session render's, one object per distinct envelope (kept while unchanged).
  const collected = (await lockstep(events, model)).envelopes;
  const envelopes: Envelope[] = [];
  let last = '';
  for (const e of collected) {
    const json = JSON.stringify(e);
    envelopes.push(json === last ? envelopes.at(-1)! : (JSON.parse(json) as Envelope));
    last = json;
  }
  type At = { prepare: number; step: number; recognition: number; samePrepare: number; sameStep: number; after: number };
  const perRun: Map<number, At>[] = [];
  let forkNo = 0;
  for (let run = 0; run < GROWTH_RUNS; run++) {
    const recognition: number[] = [];
    const pending = [...lengths];
    const forks: { length: number; after: number; at: number; start: Start }[] = [];
    const t = await lockstep(
      events,
      model,
      envelopes,
      loopEvents,
      run % 2,
      (k, messages, store) => {
        const record = store.loadSync('bench');
        if (!record?.sentIndex) return;
        const t0 = clock();
        firstMismatchIndexed(messages, record.consumed, record.sentIndex, DEFAULT_VERIFY_RECENT, record.consumedCount);
        recognition[k] = clock() - t0;
      },
      {
        onUser: (requests, snapshot, at) => {
          if (pending.length > 0 && requests >= pending[0]!) forks.push({ length: pending.shift()!, after: requests, at, start: snapshot() });
        },
      },
    );
    // The same window after every length, FORK_ROUNDS rounds.
    const same = new Map<number, { prepare: number[]; step: number[] }>(forks.map((f) => [f.length, { prepare: [], step: [] }]));
    for (let round = 0; round < FORK_ROUNDS; round++) {
      for (const f of forks) {
        const n = ++forkNo;
        const env = f.start.envelope!;
        const w = await lockstep(forkOf(window, n, f.at), model, Array(FORK_WINDOW).fill(env), forkOf(window, n, f.at), n % 2, undefined, {
          from: f.start,
        });
        same.get(f.length)!.prepare.push(...w.prepare);
        same.get(f.length)!.step.push(...w.step);
      }
    }
    const at = new Map<number, At>();
    for (const n of lengths) {
      const w = (xs: readonly number[]) => median(xs.slice(n - WINDOW, n).filter((x) => x !== undefined));
      const f = same.get(n);
      const fork = forks.find((x) => x.length === n);
      at.set(n, {
        prepare: w(t.prepare),
        step: w(t.step),
        recognition: w(recognition),
        samePrepare: f ? median(f.prepare) : Number.NaN,
        sameStep: f ? median(f.step) : Number.NaN,
        after: fork?.after ?? Number.NaN,
      });
    }
    perRun.push(at);
  }
  const fig = (f: (r: Map<number, At>) => number) => {
    const xs = perRun.map(f);
    return { value: median(xs), range: `${sig(Math.min(...xs))}–${sig(Math.max(...xs))}` };
  };
  const first = lengths[0]!;
  const lastN = lengths.at(-1)!;
  const rows: Row[] = [];
  for (const n of lengths) {
    const p = fig((r) => r.get(n)!.samePrepare / 1000);
    const s = fig((r) => r.get(n)!.sameStep / 1000);
    const ratio = fig((r) => r.get(n)!.samePrepare / r.get(n)!.sameStep);
    rows.push({
      name: `long session (${GROWTH} requests, kept): prepare ÷ Session step, the same ${FORK_WINDOW} requests after ${perRun[0]!.get(n)!.after}`,
      value: times(ratio.value),
      unit: 'ratio',
      baseline: `runs ×${ratio.range}; prepare ${sig(p.value)} µs (${p.range}), step ${sig(s.value)} µs (${s.range}), medians of ${FORK_ROUNDS} × ${FORK_WINDOW} requests, over ${GROWTH_RUNS} runs`,
    });
  }
  const spg = fig((r) => r.get(lastN)!.samePrepare / r.get(first)!.samePrepare);
  const ssg = fig((r) => r.get(lastN)!.sameStep / r.get(first)!.sameStep);
  rows.push({
    name: `long session: prepare growth, the same ${FORK_WINDOW} requests after ${lastN} ÷ after ${first}`,
    value: times(spg.value),
    unit: 'ratio',
    baseline: `runs ×${spg.range}; Session step growth ×${sig(ssg.value)} (×${ssg.range}) on the same requests; issue 14 target ≤ ×1.5`,
  });
  for (const n of lengths) {
    const p = fig((r) => r.get(n)!.prepare / 1000);
    const s = fig((r) => r.get(n)!.step / 1000);
    const q = fig((r) => r.get(n)!.recognition / 1000);
    const ratio = fig((r) => r.get(n)!.prepare / r.get(n)!.step);
    rows.push({
      name: `long session (${GROWTH} requests, kept): prepare ÷ Session step, ${WINDOW} requests ending at ${n} (different requests)`,
      value: times(ratio.value),
      unit: 'ratio',
      baseline: `runs ×${ratio.range}; prepare ${sig(p.value)} µs (${p.range}), step ${sig(s.value)} µs (${s.range}), recognition ${sig(q.value)} µs (${q.range}), medians over ${GROWTH_RUNS} runs`,
    });
  }
  const pg = fig((r) => r.get(lastN)!.prepare / r.get(first)!.prepare);
  const sg = fig((r) => r.get(lastN)!.step / r.get(first)!.step);
  rows.push({
    name: `long session: prepare growth, ${WINDOW} requests ending at ${lastN} ÷ at ${first} (different requests)`,
    value: times(pg.value),
    unit: 'ratio',
    baseline: `runs ×${pg.range}; Session step growth ×${sig(sg.value)} (×${sg.range}) in the same runs; the previous figure`,
  });
  return rows;
}

/**
 * The AI SDK door on a long session (`cachepointMiddleware`'s transformParams,
 * what runs before every model call). The AI SDK builds its prompt afresh for
 * every call (new message and part objects, the same strings), so identity
 * never recognises a re-sent message: the middleware compares the prompt with
 * the conversation's last call message by message (as plain data, strings by
 * `===`), keeps the mapping of the equal part and maps only the rest. Some
 * O(history) work is unavoidable (new objects every call), and the AI SDK
 * itself serializes the whole prompt every call, so the baseline is
 * `JSON.stringify` of the same call's prompt, timed right after it in the same
 * run. Here: the growth trace's first AISDK requests, the prompt rebuilt per
 * call from the kept messages as the SDK does, thinking sent back with its
 * signature. Per length the median CPU time of the WINDOW calls ending there
 * (and of the baseline; of a full `toAnthropicPrompt`, what every call mapped
 * before, for context), median and range over AISDK_RUNS runs, after an
 * untimed warm-up replay of 300 requests of another session.
 * `BENCH_PREPARE_AISDK=0` skips it; `BENCH_PREPARE_AISDK=5000` goes further.
 */
const AISDK = Number(process.env.BENCH_PREPARE_AISDK ?? 2000);
const AISDK_RUNS = Number(process.env.BENCH_PREPARE_AISDK_RUNS ?? 3);

type SdkPart = Record<string, unknown>;
type SdkMessage = { role: string; content: string | SdkPart[] };

async function aiSdkReplay(events: readonly TraceEvent[]): Promise<{ call: number[]; mapping: number[]; json: number[] }> {
  const store = new MemoryConversationStore();
  let at = 0;
  const mw = cachepointMiddleware({ conversationId: 'bench-ai-sdk', store, now: () => at });
  const model = { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-6' };
  const kept: SdkMessage[] = [];
  let tools: SdkPart[] = [];
  const names = new Map<string, string>();
  const out = { call: [] as number[], mapping: [] as number[], json: [] as number[] };
  const text = (b: { text: string }) => ({ type: 'text', text: b.text });
  for (const e of events) {
    if ('at' in e && typeof e.at === 'number') at = e.at;
    if (e.type === 'envelope') {
      kept[0] = { role: 'system', content: e.instructions.join('\n\n') };
      tools = e.tools.map((t) => {
        const tool = t as { name: string; description?: string; input_schema?: unknown };
        return { type: 'function', name: tool.name, description: tool.description, inputSchema: tool.input_schema };
      });
    } else if (e.type === 'user') {
      const blocks = typeof e.content === 'string' ? [{ type: 'text', text: e.content }] : e.content;
      kept.push({ role: 'user', content: blocks.filter((b) => b.type === 'text').map((b) => text(b as { text: string })) });
    } else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result') as ToolResultBlockParam[];
      kept.push({
        role: 'tool',
        content: results.map((b) => ({
          type: 'tool-result',
          toolCallId: b.tool_use_id,
          toolName: names.get(b.tool_use_id) ?? 'Read',
          output:
            typeof b.content === 'string' || b.content === undefined
              ? { type: 'text', value: b.content ?? '' }
              : { type: 'content', value: b.content.filter((c) => c.type === 'text').map((c) => text(c as { text: string })) },
        })),
      });
    } else if (e.type === 'assistant') {
      // The SDK's step: a fresh prompt from the messages it keeps (new message and part objects, the same values).
      const prompt = kept.map((m) => (typeof m.content === 'string' ? { ...m } : { ...m, content: m.content.map((p) => ({ ...p })) }));
      const params = { prompt, tools, maxOutputTokens: 2048 } as unknown as CallOptions;
      const t0 = clock();
      await mw.transformParams!({ params, type: 'generate', model } as never);
      out.call.push(clock() - t0);
      const t1 = clock();
      JSON.stringify(params.prompt);
      out.json.push(clock() - t1);
      const t2 = clock();
      toAnthropicPrompt(params, 'generate');
      out.mapping.push(clock() - t2);
      const content: SdkPart[] = [];
      for (const b of e.content) {
        if (b.type === 'text') content.push(text(b));
        else if (b.type === 'thinking') content.push({ type: 'reasoning', text: b.thinking, providerOptions: { anthropic: { signature: b.signature } } });
        else if (b.type === 'tool_use') {
          names.set(b.id, b.name);
          content.push({ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input });
        }
      }
      kept.push({ role: 'assistant', content });
    }
  }
  return out;
}

async function aiSdkGrowth(): Promise<Row[]> {
  const lengths = [WINDOW, 1000, AISDK].filter((n, i, a) => n <= AISDK && a.indexOf(n) === i);
  const events = generateTrace({ seed: 'bench-prepare-growth', profile: 'coding', requests: AISDK, hides: false }).filter((e) => e.type !== 'hide');
  // Warm-up (untimed): the code's steady state, as in a process that has served a few hundred calls.
  await aiSdkReplay(generateTrace({ seed: 'bench-prepare-aisdk-warmup', profile: 'coding', requests: 300, hides: false }).filter((e) => e.type !== 'hide'));
  const perRun: { call: Map<number, number>; mapping: Map<number, number>; json: Map<number, number> }[] = [];
  for (let run = 0; run < AISDK_RUNS; run++) {
    const r = await aiSdkReplay(events);
    const w = (xs: readonly number[], n: number) => median(xs.slice(n - WINDOW, n));
    const at = (xs: readonly number[]) => new Map(lengths.map((n) => [n, w(xs, n)]));
    perRun.push({ call: at(r.call), mapping: at(r.mapping), json: at(r.json) });
  }
  const fig = (f: (r: (typeof perRun)[number]) => number) => {
    const xs = perRun.map(f);
    return { value: median(xs), range: `${sig(Math.min(...xs))}–${sig(Math.max(...xs))}` };
  };
  const rows: Row[] = lengths.map((n) => {
    const ratio = fig((r) => r.call.get(n)! / r.json.get(n)!);
    const c = fig((r) => r.call.get(n)! / 1000);
    const j = fig((r) => r.json.get(n)! / 1000);
    const m = fig((r) => r.mapping.get(n)! / 1000);
    return {
      name: `AI SDK middleware (a fresh prompt per call): transformParams ÷ JSON.stringify(prompt), ${WINDOW} calls ending at ${n}`,
      value: times(ratio.value),
      unit: 'ratio',
      baseline: `runs ×${ratio.range}; transformParams ${sig(c.value)} µs (${c.range}), JSON.stringify of the same prompt ${sig(j.value)} µs (${j.range}); a full toAnthropicPrompt (context) ${sig(m.value)} µs (${m.range}); medians over ${AISDK_RUNS} run(s); target ≤ ×1.5`,
    };
  });
  const first = lengths[0]!;
  const last = lengths.at(-1)!;
  const g = fig((r) => r.call.get(last)! / r.call.get(first)!);
  const gj = fig((r) => r.json.get(last)! / r.json.get(first)!);
  rows.push({
    name: `AI SDK middleware: growth, ${last} ÷ ${first} (different requests)`,
    value: times(g.value),
    unit: 'ratio',
    baseline: `runs ×${g.range}; JSON.stringify of the same prompts ×${sig(gj.value)} (×${gj.range}); target: no steeper than JSON.stringify`,
  });
  return rows;
}

/**
 * How the plain loop passes its system and tools (fresh objects every run):
 * - `kept`: the same objects while they do not change (a loop with `const tools = [...]`);
 * - `rebuilt`: every object and string new for every request (a JSON parse per request; no identity hit anywhere,
 *   every string compared by its characters), all of a run's made before the run starts (~1 MB for coding's 44
 *   requests): by the time of its request, an envelope's ~21 kB are cold (a render or two ran since each was
 *   made), so the compare reads them from far caches (~3-5 µs of the ~6-7 µs it costs here, 2026-12-02);
 * - `parsed`: the same, each request's made right before its call (untimed): what a proxy that parses each
 *   request's body, or a loop that builds its params from a parse per request, hands to prepare (the objects just
 *   written, as warm as the loop left them). Added beside `rebuilt` (2026-12-02, prep20), not instead of it;
 * - `remapped`: new system blocks and tool objects for every request whose values are the loop's own (a loop that
 *   writes `tools: defs.map((d) => ({ name: d.name, description: d.description, input_schema: d.schema }))` or an
 *   inline literal of constants: the same strings, each tool's schema the same object every time).
 * `BENCH_PREPARE_LOOPS=kept,rebuilt` runs only those.
 */
const LOOPS = (process.env.BENCH_PREPARE_LOOPS ?? 'kept,rebuilt,parsed,remapped').split(',') as ('kept' | 'rebuilt' | 'parsed' | 'remapped')[];

/** The JSON text of each kept envelope (made once: only the parse is the loop's per-request work). */
const texts = new WeakMap<Envelope, string>();

/** `parsed`: the request's system and tools as a fresh JSON parse, made right before its call. */
function parsedAtRequest(e: Envelope): Envelope {
  let text = texts.get(e);
  if (text === undefined) texts.set(e, (text = JSON.stringify(e)));
  return JSON.parse(text) as Envelope;
}

/** The envelope as a loop that re-maps its definitions per request passes it: new top-level objects, their values shared. */
function remapped(e: Envelope): Envelope {
  const fresh = (xs: unknown) => (Array.isArray(xs) ? xs.map((x: object) => ({ ...x })) : xs);
  return { system: fresh(e.system), tools: fresh(e.tools) };
}

export default async function (): Promise<Row[]> {
  const rows: Row[] = [];
  // BENCH_PREPARE_FIXTURES=0: only the growth rows.
  const fixtures = process.env.BENCH_PREPARE_FIXTURES === '0' ? [] : fixtureTexts().filter((f) => FIXTURES.includes(f.name.replace(/\.jsonl$/, '')));
  for (const { name, text } of fixtures) {
    const events = parseFixture(text, name).filter((e) => e.type !== 'hide');
    const loopEvents = parseFixture(text, name).filter((e) => e.type !== 'hide');
    const model = (events.find((e) => e.type === 'envelope') as { model?: string } | undefined)?.model ?? 'claude-sonnet-4-6';
    const requests = events.filter((e) => e.type === 'assistant').length;
    const { envelopes } = await lockstep(events, model);
    for (const loop of LOOPS) {
      // Fresh objects every run (see LOOPS).
      const fresh = () => {
        const copy = JSON.parse(JSON.stringify(envelopes)) as Envelope[];
        if (loop === 'rebuilt') return copy;
        // `parsed`: the kept objects, each request's parsed from its JSON right before its call (parsedAtRequest).
        const kept = copy.map((e, i) => {
          const prev = copy[i - 1];
          return prev && JSON.stringify(prev) === JSON.stringify(e) ? (copy[i] = prev) : e;
        });
        return loop === 'kept' || loop === 'parsed' ? kept : kept.map(remapped);
      };
      const atRequest = loop === 'parsed' ? parsedAtRequest : undefined;
      // Warm-up: replays until both doors' code has run WARMUP requests (see WARMUP).
      const warmups = Math.max(1, Math.ceil(WARMUP / requests));
      for (let w = 0; w < warmups; w++) await lockstep(events, model, fresh(), loopEvents, w % 2, undefined, {}, atRequest);
      const runs: Times[] = [];
      for (let run = 0; run < RUNS; run++) {
        const envelopesOfRun = fresh();
        shiftYoungGeneration((YOUNG_SPAN * run) / RUNS);
        runs.push(await lockstep(events, model, envelopesOfRun, loopEvents, run % 2, undefined, {}, atRequest));
      }
      const vsStep = runs.map((r) => sum(r.prepare) / sum(r.step));
      const vsRender = runs.map((r) => sum(r.prepare) / sum(r.render));
      const best = { prepare: bestOf(runs.map((r) => r.prepare)), step: bestOf(runs.map((r) => r.step)), render: bestOf(runs.map((r) => r.render)) };
      const mid = { prepare: medianOf(runs.map((r) => r.prepare)), step: medianOf(runs.map((r) => r.step)), render: medianOf(runs.map((r) => r.render)) };
      const us = (ns: number) => `${sig(ns / requests / 1000)} µs`;
      const how = {
        kept: 'system/tools kept',
        rebuilt: 'system/tools rebuilt per request',
        parsed: 'system/tools parsed at each request',
        remapped: 'system/tools re-mapped per request',
      }[loop];
      rows.push({
        name: `${name}, ${how}: prepare ÷ Session step`,
        value: times(mid.prepare / mid.step),
        unit: 'ratio',
        baseline: `per-run ratios: median ${times(median(vsStep))}, range ${range(vsStep)} over ${RUNS} runs; best-of ${times(best.prepare / best.step)}; per request (median) prepare ${us(mid.prepare)}, step (appends + render + toAnthropic) ${us(mid.step)}; ${requests} requests; target ≤ ×1.2`,
      });
      rows.push({
        name: `${name}, ${how}: prepare ÷ render + toAnthropic`,
        value: times(mid.prepare / mid.render),
        unit: 'ratio',
        baseline: `per-run ratios: median ${times(median(vsRender))}, range ${range(vsRender)}; best-of ${times(best.prepare / best.render)}; render + toAnthropic alone ${us(mid.render)} (leaves out the appends prepare must do)`,
      });
    }
  }
  if (GROWTH >= WINDOW) rows.push(...(await growth()));
  if (AISDK >= WINDOW) rows.push(...(await aiSdkGrowth()));
  return rows;
}

/**
 * Render benchmarks (issue 3, issue 4 part 8).
 *
 * (a) Render latency during a 500-request replay of a generated coding
 *     session (tool results shaped like real ones: median ~300 chars, heavy
 *     tail). Per request: `render(state, { now })` + `toAnthropic(rendered)`,
 *     against the baseline `JSON.stringify(params)` of the same request, which
 *     every caller pays anyway to send it. Each replay uses a fresh token cache
 *     (so every run counts each new block once, as a live session does); the
 *     first replay is a warm-up, and each request's time is the median over
 *     the measured replays. Also: how render time grows from the first 50
 *     requests to the last 50, next to how the request (stringify) grows.
 * (d) Incremental counting: a 300-request, ~1M-character session; render
 *     after appending one round with a warm `BlockTokenCache` (reused across
 *     renders) vs a fresh one (everything counted and stream blocks rebuilt
 *     from scratch).
 *
 * Run: `npm run bench -- render` or `npx tsx test/bench/render.ts`.
 */
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { appendResponse, appendToolResults } from '../../src/timeline/edit.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { blockText, BlockTokenCache } from '../../src/tokens/counter.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import type { AssistantEvent, ToolResultsEvent, TraceEvent } from '../../src/trace/types.js';
import { consume, drive, formatRows, isMain, median, percentile, sig, timed, times, type Row } from './util.js';

// (a) RENDER LATENCY

const LATENCY_REQUESTS = 500;
const LATENCY_RUNS = 5;

interface RequestTiming {
  /** render + toAnthropic, ns. */
  render: number;
  /** render + toAnthropic again on the same state: every block memoized, so the passes alone. */
  passes: number;
  /** JSON.stringify(params), ns. */
  stringify: number;
  /** Request size, characters of JSON. */
  chars: number;
  /** Blocks in the stream. */
  blocks: number;
}

/** One replay of the trace; per request, the render and stringify times. */
function replayOnce(events: readonly TraceEvent[]): RequestTiming[] {
  const tokens = new BlockTokenCache();
  const out: RequestTiming[] = [];
  drive(
    events,
    (state, now) => {
      const r = timed(() => {
        const rendered = render(state, { now, tokens });
        return { rendered, params: toAnthropic(rendered) };
      });
      const again = timed(() => toAnthropic(render(state, { now, tokens })));
      consume(again.value);
      const s = timed(() => JSON.stringify(r.value.params));
      consume(s.value);
      out.push({ render: r.ns, passes: again.ns, stringify: s.ns, chars: s.value.length, blocks: r.value.rendered.stream.length });
      return r.value.rendered;
    },
    { tokens },
  );
  return out;
}

function resultSizes(events: readonly TraceEvent[]): number[] {
  const sizes: number[] = [];
  for (const e of events) {
    if (e.type !== 'tool_results') continue;
    for (const b of e.content) if (b.type === 'tool_result') sizes.push(blockText(b).text.length);
  }
  return sizes;
}

async function latency(): Promise<Row[]> {
  const events = generateTrace({ seed: 'bench-render-500', profile: 'coding', requests: LATENCY_REQUESTS });
  const sizes = resultSizes(events);
  replayOnce(events); // warm-up: JIT, tiktoken's encoder, immer
  const runs: RequestTiming[][] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) runs.push(replayOnce(events));
  const n = runs[0]!.length;
  // Per request: the median over the runs (one noisy run cannot move it).
  const renderNs: number[] = [];
  const passesNs: number[] = [];
  const stringifyNs: number[] = [];
  const ratio: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = median(runs.map((run) => run[i]!.render));
    const s = median(runs.map((run) => run[i]!.stringify));
    passesNs.push(median(runs.map((run) => run[i]!.passes)));
    renderNs.push(r);
    stringifyNs.push(s);
    ratio.push(r / s);
  }
  const us = (ns: number): number => sig(ns / 1000, 3);
  const first = (xs: number[]): number => median(xs.slice(0, 50));
  const last = (xs: number[]): number => median(xs.slice(-50));
  const chars = runs[0]!.map((t) => t.chars);
  const blocks = runs[0]!.map((t) => t.blocks);
  const tag = `${n}-request replay (coding, ${sizes.length} tool results: median ${median(sizes)} chars, p90 ${Math.round(percentile(sizes, 90))}, max ${Math.max(...sizes)})`;
  return [
    { name: 'render latency: session', value: n, unit: 'requests', baseline: tag },
    { name: 'render latency: last request size', value: chars.at(-1)!, unit: 'chars of JSON', baseline: `${runs.length} measured replays + 1 warm-up` },
    { name: 'render + toAnthropic, median', value: us(median(renderNs)), unit: 'µs', baseline: `stringify ${us(median(stringifyNs))} µs` },
    { name: 'render + toAnthropic, p99', value: us(percentile(renderNs, 99)), unit: 'µs', baseline: `stringify ${us(percentile(stringifyNs, 99))} µs` },
    { name: 'JSON.stringify(params), median', value: us(median(stringifyNs)), unit: 'µs' },
    { name: 'JSON.stringify(params), p99', value: us(percentile(stringifyNs, 99)), unit: 'µs' },
    { name: 'render ÷ stringify, median', value: sig(median(ratio)), unit: 'ratio', baseline: '< 1: render is cheaper than serializing' },
    { name: 'render ÷ stringify, p99', value: sig(percentile(ratio, 99)), unit: 'ratio' },
    {
      name: 'render, token counts memoized, median',
      value: us(median(passesNs)),
      unit: 'µs',
      baseline: `the same render again: passes only (the rest is tokenizing new blocks)`,
    },
    {
      name: 'render, requests 1–50 (median)',
      value: us(first(renderNs)),
      unit: 'µs',
      baseline: `stringify ${us(first(stringifyNs))} µs; passes only ${us(first(passesNs))} µs`,
    },
    {
      name: 'render, requests 451–500 (median)',
      value: us(last(renderNs)),
      unit: 'µs',
      baseline: `stringify ${us(last(stringifyNs))} µs; passes only ${us(last(passesNs))} µs`,
    },
    {
      name: 'render growth, last 50 ÷ first 50',
      value: sig(last(renderNs) / first(renderNs)),
      unit: 'ratio',
      baseline: `stringify ${times(last(stringifyNs) / first(stringifyNs))}, request chars ${times(median(chars.slice(-50)) / median(chars.slice(0, 50)))}`,
    },
    {
      name: 'passes-only growth, last 50 ÷ first 50',
      value: sig(last(passesNs) / first(passesNs)),
      unit: 'ratio',
      baseline: `stream blocks ${times(blocks.at(-1)! / median(blocks.slice(0, 50)))}`,
    },
  ];
}

// (d) INCREMENTAL COUNTING

const COUNT_REQUESTS = 300;
const COUNT_CHARS = 1_000_000;
const WARM_REPS = 40;
const SCRATCH_REPS = 5;

function timelineChars(state: TimelineState): number {
  let n = 0;
  for (const turn of state.turns) for (const b of turnBlocks(turn)) n += blockText(b.param).text.length;
  return n;
}

/** Characters of payload text the trace's events carry (user, assistant and tool-result content). */
function traceChars(events: readonly TraceEvent[]): number {
  let n = 0;
  for (const e of events) {
    if (e.type !== 'user' && e.type !== 'assistant' && e.type !== 'tool_results') continue;
    if (typeof e.content === 'string') n += e.content.length;
    else for (const b of e.content) n += blockText(b).text.length;
  }
  return n;
}

/** A 300-request coding session with ~1M characters: result sizes scaled up until it gets there. */
function countingTrace(): TraceEvent[] {
  let scale = 3;
  let events = generateTrace({ seed: 'bench-count-300', profile: 'coding', requests: COUNT_REQUESTS, resultScale: scale, hides: false });
  for (let i = 0; i < 4; i++) {
    const chars = traceChars(events);
    if (chars >= COUNT_CHARS * 0.9) break;
    scale *= Math.min(2, (COUNT_CHARS / chars) * 1.05);
    events = generateTrace({ seed: 'bench-count-300', profile: 'coding', requests: COUNT_REQUESTS, resultScale: scale, hides: false });
  }
  return events;
}

/**
 * A long session rendered request by request with `tokens` (as the live
 * session did), up to and including the render of its last request, and the
 * last round's events (that request's response and tool results) to append.
 */
function sessionBeforeLastRound(tokens: BlockTokenCache): { rendered: Rendered; response: AssistantEvent; results: ToolResultsEvent } {
  const events = countingTrace();
  // The last assistant event that tool results answer.
  let cut = events.length - 1;
  while (cut > 0 && !(events[cut]!.type === 'tool_results' && events[cut - 1]!.type === 'assistant')) cut--;
  const response = events[cut - 1] as AssistantEvent;
  const results = events[cut] as ToolResultsEvent;
  const state = drive(events.slice(0, cut - 1), (s, at) => render(s, { now: at, tokens }));
  // Rendered at the time of the event before the response, as replay does.
  const before = events[cut - 2]!;
  const now = 'at' in before && typeof before.at === 'number' ? before.at : response.at;
  return { rendered: render(state, { now, tokens }), response, results };
}

function appendRound(state: TimelineState, response: AssistantEvent, results: ToolResultsEvent): TimelineState {
  // appendResponse / appendToolResults copy the payloads, so every call yields new block objects.
  const s = appendResponse(state, response.content, response.at);
  const rs = results.content.filter((b) => b.type === 'tool_result').map(({ duration_ms: _d, ...b }) => b);
  return appendToolResults(s, rs, [], results.at);
}

async function incremental(): Promise<Row[]> {
  const warm = new BlockTokenCache();
  const { rendered, response, results } = sessionBeforeLastRound(warm);
  const base = rendered.state;
  const chars = timelineChars(appendRound(base, response, results));
  const at = results.at ?? rendered.at;
  const warmNs: number[] = [];
  const counted: number[] = [];
  for (let i = 0; i < WARM_REPS + 5; i++) {
    const next = appendRound(base, response, results);
    const before = warm.counted;
    const t = timed(() => render(next, { now: at, tokens: warm }));
    consume(t.value);
    if (i >= 5) {
      warmNs.push(t.ns);
      counted.push(warm.counted - before);
    }
  }
  const scratchNs: number[] = [];
  let scratchCounted = 0;
  for (let i = 0; i < SCRATCH_REPS; i++) {
    const next = appendRound(base, response, results);
    const fresh = new BlockTokenCache();
    const t = timed(() => render(next, { now: at, tokens: fresh }));
    consume(t.value);
    scratchNs.push(t.ns);
    scratchCounted = fresh.counted;
  }
  const ms = (ns: number): number => sig(ns / 1e6, 3);
  const ratio = median(scratchNs) / median(warmNs);
  return [
    {
      name: 'incremental counting: session',
      value: (rendered.state.lastRender?.requests ?? 0) + 1,
      unit: 'requests',
      baseline: `${sig(chars / 1e6, 3)}M chars of timeline text, ${rendered.stream.length} blocks`,
    },
    {
      name: 'render after one new round, warm token cache',
      value: ms(median(warmNs)),
      unit: 'ms',
      baseline: `${median(counted)} blocks counted (the new round)`,
    },
    {
      name: 'render after one new round, fresh token cache',
      value: ms(median(scratchNs)),
      unit: 'ms',
      baseline: `${scratchCounted} blocks counted (everything)`,
    },
    { name: 'incremental speed-up (fresh ÷ warm)', value: sig(ratio), unit: '×', baseline: 'target ≥ 50×' },
  ];
}

export default async function bench(): Promise<Row[]> {
  return [...(await latency()), ...(await incremental())];
}

if (isMain(import.meta.url)) console.log(formatRows(await bench()));

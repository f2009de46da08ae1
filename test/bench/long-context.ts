/**
 * Rendering at 1M-window session lengths: the step bench's coding session
 * (test/bench/step.ts: one tool result in eight rewritten as JSON, base64, CJK
 * or a mix), rendered for the `claude-sonnet-4-5[1m]` profile (1M window, the
 * `context-1m-2025-08-07` header, long-context prices), compaction on at 90 % of
 * 1M. At a few session lengths: the request's input tokens, the render +
 * `toAnthropic` + `anthropicHeaders` time against the naive renderer and
 * `JSON.stringify` of the same request (medians over a window of requests, per
 * run; median and range over runs), and what the long-context price does to a
 * request over 200k tokens.
 *
 * Run: `npm run bench -- long-context` (`BENCH_LONG_REQUESTS`, `BENCH_LONG_RUNS` to change the size).
 */
import { priceTokens } from '../../src/models/pricing.js';
import { CONTEXT_1M_BETA, longContextProfile, resolveProfile } from '../../src/models/profiles.js';
import { anthropicHeaders, toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { naiveRender, stepTrace } from './step.js';
import { consume, drive, formatRows, isMain, median, sig, type Row } from './util.js';

const REQUESTS = Number(process.env.BENCH_LONG_REQUESTS ?? 2_000);
const RUNS = Number(process.env.BENCH_LONG_RUNS ?? 3);
const WINDOW = 20;
const LENGTHS = [100, 500, 1_000, 2_000, 3_000, 5_000].filter((n) => n <= REQUESTS);
const PROFILE = longContextProfile('claude-sonnet-4-5');

interface Point {
  readonly tokens: number;
  readonly renderNs: number;
  readonly naiveNs: number;
  readonly stringifyNs: number;
  readonly header: boolean;
}

const ns = (t0: bigint): number => Number(process.hrtime.bigint() - t0);

/** One replay: per measured request, the timings; also the last render (for the price rows). */
function replayOnce(events: ReturnType<typeof stepTrace>): { points: Map<number, Point[]>; last: Rendered | undefined } {
  const tokens = new BlockTokenCache();
  const points = new Map<number, Point[]>();
  let last: Rendered | undefined;
  const measured = (i: number) => LENGTHS.find((n) => i >= n - WINDOW && i < n);
  drive(
    events,
    (state, now, i) => {
      const at = measured(i);
      const t0 = process.hrtime.bigint();
      const r = render(state, { profile: PROFILE, now, tokens });
      const params = toAnthropic(r, { max_tokens: 4096 });
      const headers = anthropicHeaders(r);
      const renderNs = ns(t0);
      consume(params);
      last = r;
      if (at !== undefined) {
        const t1 = process.hrtime.bigint();
        consume(naiveRender(state));
        const naiveNs = ns(t1);
        const t2 = process.hrtime.bigint();
        consume(JSON.stringify(params));
        const stringifyNs = ns(t2);
        const list = points.get(at) ?? [];
        list.push({ tokens: r.tokens.total, renderNs, naiveNs, stringifyNs, header: headers['anthropic-beta'] === CONTEXT_1M_BETA });
        points.set(at, list);
      }
      return r;
    },
    { profile: PROFILE },
  );
  return { points, last };
}

function spread(xs: readonly number[], digits = 3): { value: number; range: string } {
  return { value: sig(median(xs), digits), range: `${sig(Math.min(...xs), digits)}–${sig(Math.max(...xs), digits)}` };
}

export default async function bench(): Promise<Row[]> {
  const events = stepTrace(REQUESTS);
  replayOnce(events); // warm-up
  const runs = Array.from({ length: RUNS }, () => replayOnce(events));
  const rows: Row[] = [
    {
      name: 'long-context: profile',
      value: PROFILE.id,
      baseline: `window ${PROFILE.contextWindow.toLocaleString('en-US')}, anthropic-beta ${PROFILE.betas?.join(',')}, ${REQUESTS} requests, ${RUNS} runs + warm-up`,
    },
  ];
  for (const n of LENGTHS) {
    const per = runs.map((r) => r.points.get(n) ?? []);
    if (per.some((p) => p.length === 0)) continue;
    const tokens = median(per[0]!.map((p) => p.tokens));
    const renderUs = spread(per.map((p) => median(p.map((x) => x.renderNs)) / 1000));
    const vsNaive = spread(per.map((p) => median(p.map((x) => x.renderNs / x.naiveNs))));
    const vsStringify = spread(per.map((p) => median(p.map((x) => x.renderNs / x.stringifyNs))));
    const headers = per.every((p) => p.every((x) => x.header));
    rows.push(
      {
        name: `long-context at ${n} requests: input tokens`,
        value: Math.round(tokens),
        unit: 'tokens',
        baseline: tokens > 200_000 ? 'over 200k: long-context price' : 'under 200k',
      },
      {
        name: `long-context at ${n}: render + toAnthropic + headers, median`,
        value: renderUs.value,
        unit: 'µs',
        baseline: `runs ${renderUs.range}; header sent on every request: ${headers}`,
      },
      { name: `long-context at ${n}: ÷ naive renderer`, value: vsNaive.value, unit: 'ratio', baseline: `runs ${vsNaive.range}` },
      { name: `long-context at ${n}: ÷ JSON.stringify of the request`, value: vsStringify.value, unit: 'ratio', baseline: `runs ${vsStringify.range}` },
    );
  }
  const last = runs[0]!.last;
  if (last !== undefined) {
    const t = { input: last.tokens.total, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 };
    const long = priceTokens(PROFILE.prices, t).total;
    const plain = priceTokens(resolveProfile('claude-sonnet-4-5').prices, t).total;
    rows.push({
      name: `long-context: last request (${last.tokens.total.toLocaleString('en-US')} tokens) priced [1m] ÷ plain, all uncached`,
      value: sig(long / plain),
      unit: '×',
      baseline: last.tokens.total > 200_000 ? 'over 200k: ×2 expected' : 'under 200k: ×1 expected',
    });
  }
  return rows;
}

if (isMain(import.meta.url)) console.log(formatRows(await bench()));

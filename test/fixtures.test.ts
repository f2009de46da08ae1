/**
 * Every committed fixture, replayed through the engine under both policies and
 * priced by the provider cache simulator: no request the API would reject, no
 * bust, every request valid as the API checks it, at most four markers; what
 * left the prompt (hidden, pruned, compacted) reads back byte-identical; and
 * the conservative policy's cost against the ideal bound of its own requests.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { recall } from '../src/render/hide-block.js';
import { replayAll, type ReplayedRequest, type ReplayOptions } from '../src/replay/replay.js';
import { idealBound } from '../src/sim/ideal.js';
import { simulateAll } from '../src/sim/index.js';
import { validateRequest } from '../src/testing/fake-server-validate.js';
import { findBlock } from '../src/timeline/paths.js';
import type { TimelineState } from '../src/timeline/types.js';
import { readTrace } from '../src/trace/reader.js';
import type { TraceEvent } from '../src/trace/types.js';

const DIR = 'fixtures';
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

/** Conservative cost ÷ ideal bound of the same requests, where the engine is at the bound. */
const TIGHT = 1.005;

/**
 * Fixtures where the conservative policy is measurably above the ideal bound
 * of its own requests, with an upper bound a little above the ratio measured
 * on 2026-11-30 (fixtures regenerated with `revisits`; `npm run bench -- cost`
 * splits each excess by where it arises). The ideal is clairvoyant: across an
 * idle gap it knows whether the next request comes back within the TTL (and
 * writes 1h entries for exactly the reads that need them), it sends the last
 * request's new tokens uncached because it knows no request follows, and it
 * re-reads a prefix at any block after an envelope change; the engine cannot
 * know the future. Lowering a bound is progress; raising one needs a reason in
 * the commit.
 *
 * | fixture          | measured | bound | why above the ideal                                          |
 * |------------------|---------:|------:|--------------------------------------------------------------|
 * | long-idle.jsonl  |  ×1.0216 | ×1.03 | gaps of 5–60 min (2.15 % of the 2.2 %)                       |
 * | mixed-2.jsonl    |  ×1.0773 | ×1.085| one 20-min gap between turns 1 and 2 (7.8 %)                 |
 * | demo.jsonl       |  ×1.0192 | ×1.025| its last request writes 1,910 new tokens no request reads    |
 * | fanout.jsonl     |  ×1.0048 | ×1.01 | the last request's write (0.48 %)                            |
 *
 * Every other fixture must be within ×1.005 (measured: coding 1.0002, compaction
 * 1.0003, mixed-1 1.0014, mixed-3 1.0020, mixed-4 1.0006, research 1.0004,
 * revisits 1.0001, volatile-tail 1.0013), and so must any new fixture until it
 * is listed here.
 */
const LOOSE: Readonly<Record<string, number>> = {
  'long-idle.jsonl': 1.03,
  'mixed-2.jsonl': 1.085,
  'demo.jsonl': 1.025,
  'fanout.jsonl': 1.01,
};

/** The compaction fixture replays in ~1–2 s per policy here; the margin is for a loaded 2-core box. */
const FIXTURE_TIMEOUT_MS = 120_000;

async function load(file: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  for await (const e of readTrace(join(DIR, file))) events.push(e);
  return events;
}

/** Counts `cache_control` keys anywhere in a request. */
function markers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + markers(v), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce((n, [k, v]) => n + (k === 'cache_control' ? 1 : 0) + markers(v), 0);
}

/**
 * The payloads exactly as the trace recorded them, by tool_use id: results
 * (minus `duration_ms`, which is never sent) and calls. This is the ground
 * truth recall must return, independent of the engine's state.
 */
function tracePayloads(events: readonly TraceEvent[]): { results: Map<string, unknown>; calls: Map<string, unknown> } {
  const results = new Map<string, unknown>();
  const calls = new Map<string, unknown>();
  for (const e of events) {
    if (e.type === 'tool_results') {
      for (const b of e.content) {
        if (b.type !== 'tool_result') continue;
        const { duration_ms: _d, ...sent } = b;
        results.set(b.tool_use_id, sent);
      }
    } else if (e.type === 'assistant') {
      for (const b of e.content) if (b.type === 'tool_use') calls.set(b.id, { type: 'tool_use', id: b.id, name: b.name, input: b.input });
    }
  }
  return { results, calls };
}

/** Every path whose payload left the prompt: hidden/pruned records and everything a summary covers. */
function departedPaths(state: TimelineState): { hidden: string[]; summarized: string[] } {
  return { hidden: Object.keys(state.hidden), summarized: state.summaries.flatMap((s) => [...s.paths]) };
}

/** The tool_result for `id` in a request, or undefined. */
function toolResultIn(request: MessageCreateParamsNonStreaming, id: string): ContentBlockParam | undefined {
  for (const m of request.messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return b;
  }
  return undefined;
}

const checked = { hidden: 0, summarized: 0, againstTrace: 0 };

type Policy = 'conservative' | 'economy';

/**
 * Each fixture is read once and replayed once per policy: a case needs its own
 * policy's replay and the other policy's (for the cross-policy recall check),
 * so the two cases of a file share both replays instead of running four.
 * Replays are deterministic, so sharing changes no assertion. A file's entries
 * are dropped once both of its cases have run.
 */
const shared = new Map<string, { events: Promise<TraceEvent[]>; replays: Map<Policy, Promise<ReplayedRequest[]>>; uses: number }>();

function fixture(file: string) {
  let f = shared.get(file);
  if (!f) shared.set(file, (f = { events: load(file), replays: new Map(), uses: 0 }));
  return f;
}

function replayOf(file: string, policy: Policy): Promise<ReplayedRequest[]> {
  const f = fixture(file);
  let r = f.replays.get(policy);
  if (!r) {
    const options: ReplayOptions = { policy };
    f.replays.set(policy, (r = f.events.then((events) => replayAll(events, options))));
  }
  return r;
}

function done(file: string): void {
  const f = shared.get(file);
  if (f && ++f.uses === 2) shared.delete(file);
}

// The last test reads what the fixture tests counted: they run in this order even under --sequence.shuffle.
describe('committed fixtures through the engine', { shuffle: false }, () => {
  it('finds the fixtures, and every loosened bound names one that exists', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(11);
    for (const f of Object.keys(LOOSE)) expect(FIXTURES).toContain(f);
    for (const bound of Object.values(LOOSE)) expect(bound).toBeLessThanOrEqual(1.1);
  });

  const cases = FIXTURES.flatMap((file) => (['conservative', 'economy'] as const).map((policy) => [file, policy] as const));

  it.each(cases)(
    '%s (%s): valid, ≤ 4 markers, no rejection, no bust, departed payloads recallable',
    async (file, policy) => {
      const events = await fixture(file).events;
      const replayed = await replayOf(file, policy);
      expect(replayed.length).toBeGreaterThan(0);
      expect(replayed.length).toBe(events.filter((e) => e.type === 'assistant').length);

      for (const r of replayed) {
        expect(validateRequest(r.request), `${file} request ${r.index}`).toBeNull();
        expect(markers(r.request), `${file} request ${r.index}: markers`).toBeLessThanOrEqual(4);
      }

      const requests = replayed.map((r) => ({ at: r.at, params: r.request }));
      const results = simulateAll(requests);
      const rejected = results.filter((r) => r.rejected !== null).map((r) => `#${r.index}: ${r.rejected!.message}`);
      expect(rejected, `${file}: rejected requests`).toEqual([]);
      const busts = results.filter((r) => r.explain?.bust).map((r) => `#${r.index}: ${r.explain!.missedTokens} tokens missed`);
      expect(busts, `${file}: busts`).toEqual([]);
      for (const r of results) expect(r.explain!.markers.length).toBeLessThanOrEqual(4);

      // The conservative policy against the ideal bound of its own requests.
      if (policy === 'conservative') {
        const cost = results.reduce((sum, r) => sum + r.cost!.total, 0);
        const ideal = idealBound(requests).ideal.cost;
        expect(ideal).toBeGreaterThan(0);
        // The ideal is a lower bound of any marker strategy on the same bytes.
        expect(cost).toBeGreaterThanOrEqual(ideal * (1 - 1e-9));
        expect(cost / ideal, `${file}: conservative cost ÷ ideal`).toBeLessThanOrEqual(LOOSE[file] ?? TIGHT);
      }

      // What left the prompt reads back byte-identical: against the state's own
      // block, against the trace's payload (tool calls/results), and against the
      // same block in a replay under the other policy (different prune decisions).
      const last = replayed.at(-1)!;
      const state = last.rendered.state;
      const other = (await replayOf(file, policy === 'economy' ? 'conservative' : 'economy')).at(-1)!.rendered.state;
      const trace = tracePayloads(events);
      const { hidden, summarized } = departedPaths(state);
      // Economy prunes on every fixture but the demo: its 16 requests hold no payload worth the one-time prune
      // notice's reads (the gate prices it, src/render/gate.ts `noticePrice`), so it sends what conservative sends.
      if (policy === 'economy' && file !== 'demo.jsonl') expect(hidden.length, `${file}: economy prunes something`).toBeGreaterThan(0);
      for (const path of [...hidden, ...summarized]) {
        const back = recall(state, path);
        const bytes = JSON.stringify(back);
        expect(back, path).toEqual(findBlock(state, path)!.param);
        // The prune notice is the engine's own block: the other policy may never have pruned, so never shown it.
        if (path !== 'notices/prune') expect(bytes, path).toBe(JSON.stringify(findBlock(other, path)!.param));
        const id = /\/(results|calls)\/(?!text-)([^/]+)$/.exec(path);
        if (id) {
          const original = (id[1] === 'results' ? trace.results : trace.calls).get(id[2]!);
          expect(original, `${path} is in the trace`).toBeDefined();
          expect(bytes, path).toBe(JSON.stringify(original));
          checked.againstTrace++;
        }
      }
      checked.hidden += hidden.length;
      checked.summarized += summarized.length;

      // … and a hidden tool result is really gone from the last request: its
      // tool_result is there (the API needs it) but no longer carries the payload.
      // (A hidden result that a summary covers later is not sent at all.)
      const covered = new Set(summarized);
      for (const path of hidden) {
        const id = /\/results\/(?!text-)([^/]+)$/.exec(path)?.[1];
        if (!id || covered.has(path)) continue;
        const sent = toolResultIn(last.request, id);
        expect(sent, `${path} is still answered in the last request`).toBeDefined();
        expect(JSON.stringify((sent as { content?: unknown }).content), path).not.toBe(JSON.stringify((recall(state, path) as { content?: unknown }).content));
      }
      done(file);
    },
    FIXTURE_TIMEOUT_MS,
  );

  it('checked hidden, pruned and summarized payloads, not an empty set', () => {
    // Guards the recall checks above against becoming vacuous (e.g. a fixture
    // regenerated without compaction): today 693 hidden and 251 summarized paths.
    expect(checked.hidden).toBeGreaterThan(100);
    expect(checked.summarized).toBeGreaterThan(0);
    expect(checked.againstTrace).toBeGreaterThan(100);
  });
});

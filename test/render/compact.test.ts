import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { customProfile } from '../../src/models/profiles.js';
import { render, renderAsync } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { recall } from '../../src/render/hide-block.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { ContextOverflowError } from '../../src/errors.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { startTurn, appendResponse, appendToolResults, createTimeline, setTail } from '../../src/timeline/edit.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { findBlock } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { Summarizer } from '../../src/summarize/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

/** A small window so compaction triggers on test-sized sessions. */
const small = customProfile('test-small', { contextWindow: 12_000, minCacheableTokens: 1024, prices: { input: 3 } });
const opts = { profile: small, prune: { enabled: false } } as const;

function grow(turns: number, roundsPerTurn: number, size = 1200): TimelineState {
  let s = newSession();
  for (let t = 1; t <= turns; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < roundsPerTurn; r++) s = toolRound(s, 1, size);
    if (t < turns) s = finalAnswer(s);
  }
  return s;
}

describe('compact', () => {
  it("leaves the state it edits frozen: the new summary and its paths, the free prunes' records, the hidden map", () => {
    // A generated coding session long enough for compactions with free prunes (the default options).
    const tokens = new BlockTokenCache();
    let state: TimelineState | undefined;
    let at = 0;
    let compactions = 0;
    let prunes = 0;
    const deepFrozen = (x: unknown): boolean =>
      x === null || typeof x !== 'object' || (Object.isFrozen(x) && Object.values(x as object).every((v) => deepFrozen(v)));
    for (const e of generateTrace({ seed: 'frozen', profile: 'coding', requests: 700, hides: false })) {
      if (e.type === 'assistant') {
        const r = render(state!, { now: at, tokens });
        if (r.decisions.some((d) => d.type === 'compact')) {
          compactions++;
          prunes += r.decisions.filter((d) => d.type === 'prune').length;
          expect(Object.isFrozen(r.state) && Object.isFrozen(r.state.summaries) && deepFrozen(r.state.summaries.at(-1))).toBe(true);
          expect(Object.isFrozen(r.state.hidden) && Object.isFrozen(r.state.deferred) && Object.values(r.state.hidden).every(deepFrozen)).toBe(true);
        }
        state = appendResponse(r.state, e.content, e.at);
        continue;
      }
      if (e.type === 'envelope') state = createTimeline({ instructions: e.instructions, tools: e.tools, model: e.model ?? 'claude-sonnet-4-6' });
      else if (e.type === 'user') state = startTurn(state!, e.content, e.at);
      else if (e.type === 'tool_results') {
        const results = e.content.filter((b) => b.type === 'tool_result').map(({ duration_ms: _d, ...b }) => b);
        state = appendToolResults(state!, results as never, e.content.filter((b) => b.type === 'text') as never, e.at);
      } else if (e.type === 'tail') state = setTail(state!, e.content);
      if ('at' in e && typeof e.at === 'number') at = e.at;
    }
    expect(compactions).toBeGreaterThan(1);
    expect(prunes).toBeGreaterThan(0);
  });

  it('does nothing under the threshold', () => {
    const r = render(grow(2, 2, 200), { ...opts, now: 0 });
    expect(r.decisions).toEqual([]);
    expect(r.state.summaries).toHaveLength(0);
  });

  it('triggers at the threshold and lands under the target, with one summary after the envelope', () => {
    const s = grow(10, 3);
    const before = render(s, { now: 0, prune: { enabled: false }, profile: customProfile('big', { contextWindow: 1e7, prices: { input: 3 } }) });
    expect(before.tokens.total).toBeGreaterThan(0.9 * 12_000);
    const r = render(s, { ...opts, now: 0 });
    const d = r.decisions.find((x) => x.type === 'compact')!;
    expect(d).toBeDefined();
    expect(r.tokens.total).toBeLessThan(0.6 * 12_000);
    const firstTimeline = r.stream.findIndex((b) => b.segment !== 'envelope');
    expect(r.stream[firstTimeline]!.kind).toBe('summary');
    const summary = r.state.summaries[0]!;
    expect(summary.text).toContain(`turn ${summary.fromTurn}`);
    expect(summary.text).toContain('recall');
    expect(summary.paths.length).toBeGreaterThan(0);
  });

  it('recalls every compacted path byte-identical', () => {
    const s = grow(10, 3);
    const r = render(s, { ...opts, now: 0 });
    for (const path of r.state.summaries.flatMap((x) => x.paths)) {
      expect(JSON.stringify(recall(r.state, path))).toBe(JSON.stringify(findBlock(s, path)!.param));
    }
  });

  it('keeps earlier summaries byte-stable: a later compaction appends a new segment', () => {
    let s = grow(10, 3);
    const first = render(s, { ...opts, now: 0 });
    s = first.state;
    for (let t = 11; t <= 18; t++) s = finalAnswer(toolRound(toolRound(toolRound(startTurn(s, `Task ${t}`), 1, 1200), 1, 1200), 1, 1200));
    s = startTurn(s, 'Task 19');
    const second = render(s, { ...opts, now: 1000 });
    expect(second.state.summaries).toHaveLength(2);
    expect(second.state.summaries[0]).toBe(first.state.summaries[0]);
    const blocks = second.stream.filter((b) => b.kind === 'summary');
    expect(blocks.map((b) => b.path)).toEqual(['summaries/1', 'summaries/2']);
    expect(second.state.summaries[1]!.fromTurn).toBe(first.state.summaries[0]!.toTurn + 1);
  });

  it('compacts a long single turn by whole rounds, keeping the newest round', () => {
    const s = grow(1, 30);
    const r = render(s, { ...opts, now: 0 });
    const summary = r.state.summaries[0]!;
    expect(summary.toTurn).toBe(1);
    expect(summary.throughRound).toBeGreaterThan(0);
    expect(validateRequest(toAnthropic(r))).toBeNull();
    expect(r.stream.some((b) => b.round === 30)).toBe(true);
    expect(r.stream.some((b) => b.path === 'turns/1/user/0')).toBe(false);
  });

  it('never splits a tool_use from its tool_result: every compacted request is valid for the API', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rounds: fc.integer({ min: 0, max: 6 }), size: fc.integer({ min: 50, max: 2500 }), calls: fc.integer({ min: 1, max: 4 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 6000, max: 20000 }),
        (turns, window) => {
          const profile = customProfile('p', { contextWindow: window, prices: { input: 3 } });
          let s = newSession();
          turns.forEach((t, i) => {
            s = startTurn(s, `Task ${i}`);
            for (let r = 0; r < t.rounds; r++) s = toolRound(s, t.calls, t.size);
            if (i < turns.length - 1) s = finalAnswer(s);
          });
          let r: Rendered;
          try {
            r = render(s, { profile, prune: { enabled: false }, now: 0 });
          } catch (e) {
            expect(e).toBeInstanceOf(ContextOverflowError);
            return;
          }
          expect(validateRequest(toAnthropic(r))).toBeNull();
          // Every tool_use visible in the stream has its tool_result visible too, and vice versa.
          const uses = new Set(r.stream.filter((b) => (b.param as { type?: string }).type === 'tool_use').map((b) => b.id));
          const results = new Set(r.stream.filter((b) => (b.param as { type?: string }).type === 'tool_result').map((b) => b.id));
          expect([...uses].sort()).toEqual([...results].sort());
        },
      ),
      { numRuns: 40 },
    );
  });

  it('says by how much when even the envelope and the newest round cannot fit', () => {
    let s = startTurn(newSession(), 'go');
    s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_big', name: 'Read', input: { path: 'huge' } }]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_big', content: 'lorem ipsum '.repeat(8000) }]);
    expect(() => render(s, { ...opts, now: 0 })).toThrow(ContextOverflowError);
    expect(() => render(s, { ...opts, now: 0 })).toThrow(/over by \d+/);
  });

  it('falls back to the extractive summarizer when the summarizer fails or times out', async () => {
    const s = grow(10, 3);
    const failing: Summarizer = { name: 'broken', summarize: async () => Promise.reject(new Error('503 overloaded')) };
    const r = await renderAsync(s, { ...opts, now: 0, summarizer: failing });
    const d = r.decisions.find((x) => x.type === 'compact');
    expect(d && d.type === 'compact' && d.fallback).toContain('503 overloaded');
    expect(r.tokens.total).toBeLessThan(0.6 * 12_000);
    const slow: Summarizer = { name: 'slow', summarize: () => new Promise(() => {}) };
    const t = await renderAsync(s, { ...opts, now: 0, summarizer: slow, summarizerTimeoutMs: 50 });
    const dt = t.decisions.find((x) => x.type === 'compact');
    expect(dt && dt.type === 'compact' && dt.fallback).toContain('no answer within 50 ms');
  });

  it('uses an async summarizer’s text through renderAsync, and refuses it in the sync render', async () => {
    const s = grow(10, 3);
    const llm: Summarizer = {
      name: 'fake-llm',
      summarize: async (input) => ({ text: `Turns ${input.fromTurn}-${input.toTurn}: fixed the bugs.`, by: 'fake-llm' }),
    };
    const r = await renderAsync(s, { ...opts, now: 0, summarizer: llm });
    expect(r.state.summaries[0]!.text).toContain('fixed the bugs.');
    expect(() => render(s, { ...opts, now: 0, summarizer: llm })).toThrow(/renderAsync/);
  });

  it('summaries are deterministic', () => {
    const s = grow(10, 3);
    expect(render(s, { ...opts, now: 0 }).state.summaries[0]!.text).toBe(render(s, { ...opts, now: 0 }).state.summaries[0]!.text);
  });
});

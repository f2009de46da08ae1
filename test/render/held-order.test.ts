/**
 * The held stale results' decisions in stream order (prune.ts `pushHeld`): on a model that binds thinking, the visible
 * results of file-less calls a write made stale are held, found again after every write from the walk's slots, whose
 * order is the order the walk saw their keys visible, not their place in the stream. A key called again takes a later
 * place; when the walk reads its live keys anew (another minChars), it reads them in the order the keys were first
 * called, so a slot before another can hold a result after it. Hand-built session: the held decisions come in stream
 * order, and every render equals a render of a cold copy of its state (its own walk, no record).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Decision, Rendered, RenderOptions } from '../../src/render/types.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, tiktokenCounter } from '../../src/tokens/counter.js';
import { coldCopy } from '../helpers/cold-copy.js';

const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);
const MODEL = 'claude-sonnet-5-5';

const output = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed} line ${i}: status of the build step ${i} is fine`).join('\n');

interface Call {
  readonly name: string;
  readonly input: unknown;
  readonly out: string;
}
const bash = (command: string, out: string): Call => ({ name: 'Bash', input: { command }, out });
const write = (k: number): Call => ({ name: 'Write', input: { file_path: `/repo/out/${k}.txt`, content: `step ${k}` }, out: 'Written.' });

/** Renders a request before each step's response (`calls`, after thinking), checked against a cold copy's render. */
function play(steps: readonly { calls: readonly Call[]; minChars?: number }[]): Rendered[] {
  const tokens = new BlockTokenCache(tiktokenCounter());
  const options: RenderOptions = { profile: { ...resolveProfile(MODEL), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false } };
  let state: TimelineState = createTimeline({
    instructions: ['You are a coding agent. '.repeat(2_000)],
    tools: ['Bash', 'Write'].map((name) => ({ name, input_schema: { type: 'object' } })),
    model: MODEL,
  });
  let now = T0;
  state = startTurn(state, 'Keep the build green.', now);
  const out: Rendered[] = [];
  steps.forEach((s, n) => {
    now += 3_000;
    const opts: RenderOptions = { ...options, now, tokens, prune: { minChars: s.minChars ?? 300 } };
    const r = render(state, opts);
    const fresh = render(coldCopy(state), opts);
    expect(r.decisions).toEqual(fresh.decisions);
    expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
    out.push(r);
    const thinking = [{ type: 'thinking', thinking: `Step ${n}. `.repeat(8), signature: `sig-${n}-${'x'.repeat(40)}` }];
    const uses = s.calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${n}_${i}`, name: c.name, input: c.input }));
    state = appendResponse(r.state, [...thinking, ...uses] as never, now);
    now += 3_000;
    state = appendToolResults(state, s.calls.map((c, i) => ({ type: 'tool_result', tool_use_id: `toolu_${n}_${i}`, content: c.out })) as never, [], now);
  });
  return out;
}

/** The held results' paths, in the order the decisions give them. */
const held = (r: Rendered): string[] => r.decisions.filter((d: Decision) => d.type === 'defer' && d.why.startsWith('preserved thinking')).map((d) => d.path);

describe('held stale results come in stream order when the walk reads its live keys in another order', () => {
  it('a key called again, then the live keys read anew (another minChars), then two writes (claude-sonnet-5-5)', () => {
    const rs = play([
      { calls: [bash('build-status', output('status', 8))] },
      { calls: [bash('ls', output('ls', 8))] },
      // The status again, with another output: its newest result now comes after the listing's.
      { calls: [bash('build-status', output('status again', 8))] },
      { calls: [bash('x1', output('x1', 2))] },
      { calls: [write(1)] },
      // The live keys read anew, in the order the keys were first called: the status's slot before the listing's.
      { calls: [bash('x2', output('x2', 2))], minChars: 280 },
      { calls: [write(2)], minChars: 280 },
      // Found after the write as candidates (their slots recorded), held before the thinking after them.
      { calls: [bash('x3', output('x3', 2))], minChars: 280 },
      { calls: [write(3)], minChars: 280 },
      // Found again, held from the slots' records: in stream order, the listing before the status.
      { calls: [bash('x4', output('x4', 2))], minChars: 280 },
      { calls: [bash('x5', output('x5', 2))], minChars: 280 },
    ]);
    const listing = 'turns/1/rounds/2/results/toolu_1_0';
    const status = 'turns/1/rounds/3/results/toolu_2_0';
    expect(held(rs[7]!)).toEqual([listing, status]);
    expect(held(rs[9]!)).toEqual([listing, status]);
  });
});

/**
 * The per-slot record of the economy prune pass (prune.ts `SlotRecord`) read where generated sessions never take it:
 * a stale result of a file-less call, found again after a write, is weighed from its slot's record only while the slot
 * holds the same result, the stream the same block at the recorded index, the counter is the one it was read with, and
 * its re-use verdict is asked anew. Hand-built sessions on models that do not bind thinking (their stale results are
 * weighed, not held), each request's render equal to a render of a cold copy of its state (its own walk, no record),
 * decisions and request bytes:
 * - the recorded block moves: a model that does not keep thinking leaves the first turn's thinking out once a second
 *   turn starts, so the stale result (after four thinking blocks) sits four places earlier than recorded;
 * - the counter changes: a record read under one counter (the payload's saving) is not one under a counter whose notes
 *   cost more than any payload (removing it saves nothing there);
 * - the verdict changes: the stale result's chance was 0 when recorded; an external call with the same output, deduped
 *   onto it since, gives it that call's chance, and after the next write the gate keeps it visible.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Decision, RenderOptions } from '../../src/render/types.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, type TokenCounter, tiktokenCounter } from '../../src/tokens/counter.js';
import { coldCopy } from '../helpers/cold-copy.js';

const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);
const tiktoken = tiktokenCounter();

/** js-tiktoken, but a hidden payload's note costs more than any payload: removing one saves nothing. */
const dearNotes: TokenCounter = {
  name: 'dear-notes',
  count: (text) => (text.startsWith('[') && text.includes('recall(') ? 1_000_000 : tiktoken.count(text)),
};

const output = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed} line ${i}: status of the build step ${i} is fine`).join('\n');

interface Call {
  readonly name: string;
  readonly input: unknown;
  readonly out: string;
}

/** One request, then (unless `user`) a response with `calls` and their results; `tokens`: the counter's index. */
interface Step {
  readonly user?: string;
  readonly thinking?: string;
  readonly calls?: readonly Call[];
  readonly tokens?: number;
  readonly options?: Partial<RenderOptions>;
}

const bash = (command: string, out: string): Call => ({ name: 'Bash', input: { command }, out });
const write = (k: number): Call => ({ name: 'Write', input: { file_path: `/repo/out/${k}.txt`, content: `step ${k}` }, out: 'Written.' });
const fetch = (out: string): Call => ({ name: 'WebFetch', input: { url: 'https://ci.example/status' }, out });

/** Renders each step's request, checked against a cold copy's render; returns each request's decisions. */
function play(model: string, steps: readonly Step[], base: Partial<RenderOptions>, counters: readonly TokenCounter[] = [tiktoken]): (readonly Decision[])[] {
  const caches = counters.map((c) => new BlockTokenCache(c));
  const options: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false }, ...base };
  // A long prefix: recalling a payload costs a round over it, so a result with some chance of a later need is kept.
  let state: TimelineState = createTimeline({
    instructions: ['You are a coding agent. '.repeat(12_000)],
    tools: ['Bash', 'Write', 'WebFetch'].map((name) => ({ name, input_schema: { type: 'object' } })),
    model,
  });
  let now = T0;
  state = startTurn(state, 'Keep the build green.', now);
  const decisions: (readonly Decision[])[] = [];
  steps.forEach((s, n) => {
    now += 3_000;
    const opts = { ...options, ...s.options, now, tokens: caches[s.tokens ?? 0]! };
    const r = render(state, opts);
    const fresh = render(coldCopy(state), opts);
    expect(r.decisions).toEqual(fresh.decisions);
    expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
    decisions.push(r.decisions);
    if (s.user) {
      state = appendResponse(r.state, [{ type: 'text', text: 'Done.' }] as never, now);
      now += 3_000;
      state = startTurn(state, s.user, now);
      return;
    }
    const calls = s.calls ?? [];
    const thinking = s.thinking ? [{ type: 'thinking', thinking: s.thinking.repeat(8), signature: `sig-${n}-${'x'.repeat(40)}` }] : [];
    const uses = calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${n}_${i}`, name: c.name, input: c.input }));
    state = appendResponse(r.state, [...thinking, ...uses] as never, now);
    now += 3_000;
    state = appendToolResults(state, calls.map((c, i) => ({ type: 'tool_result', tool_use_id: `toolu_${n}_${i}`, content: c.out })) as never, [], now);
  });
  return decisions;
}

const STATUS = output('status', 8);
const paths = (ds: readonly Decision[], type: Decision['type']) => ds.filter((d) => d.type === type).map((d) => d.path);

describe('stale results weighed from their slot record equal a cold render when the record no longer holds', () => {
  // Catches the same-stream-block check dropped (prune.ts, the slot loop): the record's old index, four places on, sorts
  // it after the next stale result, and the batch's decisions come in another order.
  it('the recorded block moves: thinking of the first turn left out after a new turn (claude-sonnet-4-5)', () => {
    const decisions = play(
      'claude-sonnet-4-5',
      [
        { thinking: 'Where am I. ', calls: [bash('pwd', '/repo')] },
        { thinking: 'Which branch. ', calls: [bash('git branch', '* main')] },
        { thinking: 'Which user. ', calls: [bash('whoami', 'dev')] },
        { thinking: 'Check the build first. ', calls: [bash('build-status', STATUS)] },
        { thinking: 'And the tree. ', calls: [bash('ls', output('ls', 10))] },
        { calls: [write(1)] },
        // Recorded here (found stale after the write), left visible.
        { calls: [bash('x1', output('x1', 3))] },
        { user: 'Now the docs.' },
        { thinking: 'Docs next. ', calls: [bash('x2', output('x2', 3))] },
        { calls: [write(2)] },
        // Found again after the write, the first turn's thinking left out: weighed, pruned with the tree's listing.
        { calls: [bash('x3', output('x3', 3))], options: { expectedRemaining: 200 } },
        { calls: [write(3)], options: { expectedRemaining: 200 } },
        { calls: [bash('x4', output('x4', 3))], options: { expectedRemaining: 200 } },
      ],
      { expectedRemaining: 2 },
    );
    expect(decisions[6]).toEqual([]);
    expect(paths(decisions[10]!, 'prune')).toEqual(['turns/1/rounds/4/results/toolu_3_0', 'turns/1/rounds/5/results/toolu_4_0']);
  });

  // Catches the record not keyed by counter only together with the stream block check dropped: a counter's stream
  // blocks are its own (projection.ts memos per BlockTokenCache), so either check alone reads the slot anew.
  it('the counter changes: a record read under one counter is not read under another (claude-sonnet-4-6)', () => {
    const decisions = play(
      'claude-sonnet-4-6',
      [
        { calls: [bash('build-status', STATUS)] },
        { calls: [bash('ls', output('ls', 10))] },
        { calls: [fetch(STATUS)] },
        { calls: [write(1)] },
        // Recorded here under js-tiktoken: kept (its duplicate's chance), saving its tokens.
        { calls: [bash('x1', output('x1', 3))] },
        { calls: [bash('x2', output('x2', 3))], tokens: 1 },
        { calls: [write(2)], tokens: 1 },
        // Found again after the write under the other counter: removing it saves nothing, so no decision on it.
        { calls: [bash('x3', output('x3', 3))], tokens: 1 },
        { calls: [bash('x4', output('x4', 3))], tokens: 1 },
      ],
      { expectedRemaining: 8 },
      [tiktoken, dearNotes],
    );
    expect(paths(decisions[4]!, 'defer')).toContain('turns/1/rounds/1/results/toolu_0_0');
    expect(decisions[7]).toEqual([]);
  });

  // Catches the re-use verdict read from the record (p = 0 when recorded) instead of asked anew.
  it('the verdict changes: a duplicate deduped onto the stale result since it was recorded (claude-sonnet-4-6)', () => {
    const decisions = play(
      'claude-sonnet-4-6',
      [
        { calls: [bash('build-status', STATUS)] },
        { calls: [bash('ls', output('ls', 5))] },
        { calls: [write(1)] },
        // Recorded here: stale, no duplicate (p = 0), left visible.
        { calls: [bash('x1', output('x1', 3))] },
        { calls: [fetch(STATUS)] },
        // The fetch deduped onto the build status.
        { calls: [bash('x2', output('x2', 3))] },
        { calls: [write(2)] },
        // Found again after the write, its chance now the fetch's: kept visible.
        { calls: [bash('x3', output('x3', 3))] },
        { calls: [bash('x4', output('x4', 3))] },
      ],
      { expectedRemaining: 8 },
    );
    expect(decisions[3]).toEqual([]);
    expect(paths(decisions[5]!, 'prune')).toEqual(['turns/1/rounds/5/results/toolu_4_0']);
    const kept = decisions[7]!.filter((d) => d.type === 'defer');
    expect(kept.map((d) => d.path)).toEqual(['turns/1/rounds/1/results/toolu_0_0']);
    expect(kept[0]!.type === 'defer' && kept[0]!.why).toContain('via its duplicate turns/1/rounds/5/results/toolu_4_0');
  });
});

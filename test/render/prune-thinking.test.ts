/**
 * Economy prunes the thinking of earlier turns on models that keep it (src/render/prune-rule.ts): the API
 * lets a request omit earlier turns' thinking, so the renderer leaves it out (render/projection.ts) instead
 * of altering it, when the prefix is re-written anyway (a cold window, a warm batch it rides with) or the
 * gate says its saving pays the re-write. The current turn's thinking is sent unchanged; recall returns the
 * pruned blocks byte-identical; conservative, and models that strip thinking themselves, are unchanged.
 */
import { describe, expect, it } from 'vitest';
import { recall } from '../../src/render/hide-block.js';
import { replayAll } from '../../src/replay/replay.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { parseTrace, readTrace } from '../../src/trace/reader.js';
import { ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const at = (ms: number) => new Date(T0 + ms).toISOString();
const thought = (n: number) => ({ type: 'thinking', thinking: `Considering step ${n}. `.repeat(60), signature: `sig-${n}-${'x'.repeat(40)}` });
const MIN = 60_000;

/** Two turns; the second starts after an 8-minute pause (the cache is cold), each round thinks first. */
function trace(model = ENV.model): string {
  const events: object[] = [
    { ...ENV, model },
    { type: 'user', at: at(0), content: 'read a' },
  ];
  let t = 0;
  const round = (n: number, call?: [string, Record<string, unknown>, string]) => {
    t += 3000;
    const content: object[] = [thought(n)];
    if (call) content.push({ type: 'tool_use', id: `toolu_${n}`, name: call[0], input: call[1] });
    else content.push({ type: 'text', text: `Done with ${n}.` });
    events.push({ type: 'assistant', at: at(t), content });
    if (call) {
      t += 3000;
      events.push({ type: 'tool_results', at: at(t), content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: call[2] }] });
    }
  };
  round(1, ['Bash', { command: 'ls' }, 'a.ts b.ts']);
  round(2, ['Bash', { command: 'wc -l a.ts' }, '40 a.ts']);
  round(3);
  t += 8 * MIN;
  events.push({ type: 'user', at: at(t), content: 'now b' });
  round(4, ['Bash', { command: 'wc -l b.ts' }, '12 b.ts']);
  round(5, ['Bash', { command: 'head b.ts' }, lines('bee', 3)]);
  round(6);
  return events.map((e) => JSON.stringify(e)).join('\n');
}

const thinkingIn = (request: { messages: readonly { content: unknown }[] }): string[] =>
  request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'thinking').map((b) => b.thinking as string));

describe("economy leaves out earlier turns' thinking", () => {
  it('after a cold window: turn 1 thinking is gone from the requests, turn 2 thinking is sent unchanged, recall is byte-identical', async () => {
    const reqs = await replayAll(parseTrace(trace()), { policy: 'economy', recalls: true });
    // Request 3 (turn 2, round 1) is the first after the pause: turn 1's thinking goes but for its newest round's
    // (inside keepRounds), which the next request prunes warm (its re-write is a few blocks).
    expect(thinkingIn(reqs[2]!.request)).toEqual([thought(1).thinking, thought(2).thinking]);
    expect(thinkingIn(reqs[3]!.request)).toEqual([thought(3).thinking]);
    expect(thinkingIn(reqs[4]!.request)).toEqual([thought(4).thinking]);
    expect(thinkingIn(reqs[5]!.request)).toEqual([thought(4).thinking, thought(5).thinking]);
    for (const r of reqs) expect(validateRequest(r.request)).toBeNull();
    const state = reqs.at(-1)!.rendered.state;
    const pruned = ['turns/1/rounds/1/response/0', 'turns/1/rounds/2/response/0', 'turns/1/rounds/3/response/0'];
    for (const [i, path] of pruned.entries()) {
      expect(state.hidden[path]).toBeDefined();
      expect(JSON.stringify(recall(state, path))).toBe(JSON.stringify(thought(i + 1)));
    }
    const prunedAt = (i: number) => reqs[i]!.rendered.decisions.filter((d) => d.type === 'prune').map((d) => d.path);
    expect(prunedAt(3)).toEqual(expect.arrayContaining(pruned.slice(0, 2)));
    expect(prunedAt(4)).toContain(pruned[2]);
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
  });

  it('conservative sends every thinking block', async () => {
    const reqs = await replayAll(parseTrace(trace()), {});
    expect(thinkingIn(reqs.at(-1)!.request)).toHaveLength(5);
  });

  it('a model that strips earlier thinking itself: nothing is pruned for it (the renderer already leaves it out)', async () => {
    const reqs = await replayAll(parseTrace(trace('claude-haiku-4-5')), { policy: 'economy' });
    const state = reqs.at(-1)!.rendered.state;
    expect(Object.keys(state.hidden).filter((p) => p.includes('/response/'))).toEqual([]);
  });
});

describe('the latest assistant message keeps its thinking', () => {
  it('with keepRounds 0, the first request of turn 2 after a pause still sends the thinking of turn 1 its last round', async () => {
    const reqs = await replayAll(parseTrace(trace()), { policy: 'economy', prune: { keepRounds: 0 } });
    expect(thinkingIn(reqs[3]!.request)).toEqual([thought(3).thinking]);
    expect(reqs[3]!.rendered.state.hidden['turns/1/rounds/3/response/0']).toBeUndefined();
  });
});

describe('on a fixture with thinking and redacted thinking (coding.jsonl, economy)', () => {
  it("every request carries the current turn's thinking unchanged, and some earlier turns' thinking is left out", async () => {
    const reqs = await replayAll(readTrace('fixtures/coding.jsonl'), { policy: 'economy', recalls: true });
    let omitted = 0;
    for (const r of reqs) {
      const state = r.rendered.state;
      const turn = state.turns[r.turn - 1]!;
      const current = turn.rounds.flatMap((rd) => rd.response).filter((b) => b.param.type === 'thinking' || b.param.type === 'redacted_thinking');
      const sent = r.request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).map((b) => JSON.stringify(b));
      for (const b of current) expect(sent, `request ${r.index}: ${b.path}`).toContain(JSON.stringify(b.param));
      omitted = Math.max(omitted, Object.keys(state.hidden).filter((p) => state.hidden[p] && /\/response\//.test(p) && isThinkingPath(state, p)).length);
    }
    expect(omitted).toBeGreaterThan(0);
  });
});

function isThinkingPath(state: Parameters<typeof recall>[0], path: string): boolean {
  const t = recall(state, path).type;
  return t === 'thinking' || t === 'redacted_thinking';
}

describe('the latest assistant message keeps its thinking across turns that have no round', () => {
  it('with keepRounds 0, a tool loop answered and then two user messages: the request still sends that tool_use its thinking', async () => {
    const events: object[] = [ENV, { type: 'user', at: at(0), content: 'read a' }];
    events.push({ type: 'assistant', at: at(3000), content: [thought(1), { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] });
    events.push({ type: 'tool_results', at: at(6000), content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts b.ts' }] });
    // The user writes twice before the model answers again (8 minutes later: the cache is cold).
    events.push({ type: 'user', at: at(6000 + 8 * MIN), content: 'also b' });
    events.push({ type: 'user', at: at(7000 + 8 * MIN), content: 'and c' });
    events.push({ type: 'assistant', at: at(10_000 + 8 * MIN), content: [thought(2), { type: 'text', text: 'Done.' }] });
    const reqs = await replayAll(parseTrace(events.map((e) => JSON.stringify(e)).join('\n')), { policy: 'economy', prune: { keepRounds: 0 } });
    const last = reqs.at(-1)!;
    expect(last.turn).toBe(3);
    expect(thinkingIn(last.request)).toEqual([thought(1).thinking]);
    expect(last.rendered.state.hidden['turns/1/rounds/1/response/0']).toBeUndefined();
  });
});

describe('the one-time prune notice', () => {
  const noticeIn = (request: { messages: readonly { content: unknown }[] }): boolean =>
    request.messages.some((m) =>
      (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]).some(
        (b: { type: string; text?: unknown }) => b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('Note from the runtime'),
      ),
    );

  it('is not added when a prune leaves out only thinking (no [pruned: …] note to explain, nothing to recall)', async () => {
    const reqs = await replayAll(parseTrace(trace()), { policy: 'economy', recalls: true });
    // Every prune of this trace is thinking (its tool results are too small to prune).
    const pruned = reqs.flatMap((r) => r.rendered.decisions.filter((d) => d.type === 'prune').map((d) => d.path));
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned.every((p) => p.includes('/response/'))).toBe(true);
    for (const r of reqs) {
      expect(noticeIn(r.request)).toBe(false);
      expect(r.rendered.decisions.some((d) => d.type === 'notice')).toBe(false);
    }
    expect(reqs.at(-1)!.rendered.state.pruneNotice).toBeFalsy();
  });
});

/**
 * How far the request after a cut counts the history it sends again as sent (LastRender.sentThrough, set by
 * conversation/cut-shadow.ts withShadowLedger): the rounds before the last block taken back were sent by the requests
 * before the cut, so dedupe and the prune's first chance leave them be; the round that block is in is not all sent
 * when the take-back stopped inside it (its results are new), so dedupe still weighs them as any new result.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const system = ENV.instructions[0]!;
const tools = ENV.tools.map((t) => ({ ...t, input_schema: { type: 'object' as const } }));
const file = (k: number) => `/repo/src/f${k}.ts`;
const call = (k: number): MessageParam => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id: `toolu_${k}`, name: 'Read', input: { file_path: file(k === 6 ? 2 : k) } }],
});
const result = (k: number, content: string): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${k}`, content }] });
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('the request that sends the history again after a rewind', () => {
  it('under economy, still dedupes a new result in the round where the take-back stopped', async () => {
    const store = new MemoryConversationStore();
    const user: MessageParam = { role: 'user', content: 'fix the total' };
    const send = (messages: MessageParam[], at: number) =>
      prepare(
        { model: 'claude-sonnet-4-6', max_tokens: 2048, system, tools, messages },
        { conversationId: 'sent-through', store, now: at, render: { policy: 'economy' } },
      );
    // Six rounds, one Read each (round 6 reads f2 again, but f2 changed in between: another text), every request warm.
    const history: MessageParam[] = [user];
    let at = T0;
    for (let k = 1; k <= 6; k++) {
      history.push(call(k), result(k, k === 6 ? lines('f2 edited', 60) : lines(`f${k}`, 60)));
      await send([...history], (at += 6_000));
    }
    // The loop rewinds to the turn's start, then sends the history again with round 6 answered anew: f2 as it was in
    // round 2 (the edit was undone). Rounds 1-5 and round 6's call are the bytes the requests before the cut sent.
    const cut = await send([user], (at += 6_000));
    expect(cut.plan.resync?.reason).toBe('history_truncated');
    const again = [...history.slice(0, -1), result(6, lines('f2', 60))];
    const back = await send(again, (at += 6_000));
    // The cache written before the cut is read past the cut: the stretch was taken back.
    expect(back.plan.read?.tokens ?? 0).toBeGreaterThan(cut.plan.read?.tokens ?? 0);
    // Round 6's result no request has sent: it repeats round 2's, so it is sent once, round 6 pointing at round 2.
    const text = JSON.stringify(back.params.messages);
    expect(count(text, 'f2 line 59 sums the f2 entries')).toBe(1);
    expect(text).toContain('identical to turns/1/rounds/2/results/toolu_2');
  });
});

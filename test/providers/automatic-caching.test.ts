/**
 * A loop that had turned on the API's automatic caching (a top-level `cache_control`, SDK 1.14's
 * `MessageCreateParams.cache_control`: a marker on the last cacheable block) and then put cachepoint in front of it:
 * the field went through with the other params. The API then marked the last block, the volatile tail, and once ①
 * to ④ were all placed that was a fifth marker: "A maximum of 4 blocks with cache_control may be provided. Found 5."
 * Like the markers in the caller's blocks, it is dropped, on every door (prepare, Session, toAnthropic).
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import type { MessageParam } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

const AUTO = { type: 'ephemeral' } as const;
const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const } }];
const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: { path: `${id}.ts` } });
const answer = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: `text of ${id}` });

describe('a top-level cache_control (automatic caching) in the params', () => {
  it('prepare drops it: every request of a loop with a tail stays within four markers', async () => {
    const store = new MemoryConversationStore();
    const refused: string[] = [];
    let messages: MessageParam[] = [{ role: 'user', content: 'Read the files one by one.' }];
    for (let round = 1; round <= 7; round++) {
      const { params } = await prepare(
        { model: 'claude-sonnet-4-5', max_tokens: 100, system: 'Be brief.', tools, messages, cache_control: AUTO },
        { conversationId: 'auto', store, now: round * 1000, tail: `live view ${round}` },
      );
      const issue = validateRequest(params);
      if (issue) refused.push(`request ${round}: ${issue.message}`);
      if (params.cache_control !== undefined) refused.push(`request ${round}: sent a top-level cache_control`);
      // The oracle: with the top-level marker put back, the fake server refuses it once ① to ④ are placed.
      if (round >= 5)
        expect(validateRequest({ ...params, cache_control: AUTO })?.message).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
      const id = `toolu_${round}`;
      messages = [...messages, { role: 'assistant', content: [call(id)] }, { role: 'user', content: [answer(id)] }];
    }
    expect(refused).toEqual([]);
  });

  it('Session drops it from its request options and from the extras of a step', async () => {
    const session = new Session({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools, request: { max_tokens: 100, cache_control: AUTO } });
    session.startTurn('Read the files one by one.');
    const refused: string[] = [];
    for (let round = 1; round <= 6; round++) {
      session.setTail(`live view ${round}`);
      const params = await session.request({ cache_control: AUTO });
      const issue = validateRequest(params);
      if (issue) refused.push(`request ${round}: ${issue.message}`);
      if (params.cache_control !== undefined) refused.push(`request ${round}: sent a top-level cache_control`);
      const id = `toolu_${round}`;
      session
        .recordResponse({ content: [call(id)], stop_reason: 'tool_use', usage: { input_tokens: 10, output_tokens: 5 } } as never)
        .recordToolResults([answer(id)]);
    }
    expect(refused).toEqual([]);
  });
});

/**
 * A Session tool handler that returns something a tool result cannot hold (a number, a boolean, `{}` without
 * content): the error named `turns/1/rounds/1/results/2/content: expected an array of content blocks`, not the tool,
 * and said "array" although a string is fine (review9, "found, left" 7). Now an InvalidOptionError naming
 * `handlers.<tool>`, the call and what a handler may return; nothing is recorded, with or without a tool cache.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import type { Message } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';

const response = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [
    { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { path: 'a.ts' } },
    { type: 'tool_use', id: 'toolu_b', name: 'Count', input: {} },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
} as unknown as Message;

function session(count: unknown, withCache: boolean) {
  const s = new Session({
    model: 'claude-sonnet-4-6',
    instructions: [],
    handlers: { Read: () => 'export const a = 1;', Count: (() => count) as never },
    ...(withCache ? { toolCache: new ToolCache().register('Count', { cacheable: true, ttl: { turns: 5 } }) } : {}),
  });
  return s.startTurn('Count the files.').recordResponse(response);
}

describe('Session.runTools: a handler result a tool result cannot hold names the tool', () => {
  for (const withCache of [false, true]) {
    for (const count of [42, true, {}, { content: 7 }, null]) {
      it(`${JSON.stringify(count)} (tool cache: ${withCache})`, async () => {
        const s = session(count, withCache);
        const before = s.state;
        const err = await s.runTools().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidOptionError);
        expect((err as InvalidOptionError).option).toBe('handlers.Count');
        expect((err as Error).message).toContain('toolu_b');
        expect((err as Error).message).toMatch(/a string, an array of content blocks/);
        expect(s.state).toBe(before); // nothing recorded: the call can be answered again
      });
    }
    it(`a string, blocks and { content, isError } still go through (tool cache: ${withCache})`, async () => {
      for (const count of ['3', [{ type: 'text', text: '3' }], { content: 'no', isError: true }]) {
        const results = await session(count, withCache).runTools();
        expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
      }
    });
  }
});

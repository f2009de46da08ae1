/**
 * Messages the API refuses, given to `prepare` by an existing loop: each is refused with an InvalidParamsError that
 * names the message and block (`messages[2].content[0]…`) and what is wrong, instead of going out for a 400. The fake
 * server is the independent oracle: it refuses the same raw messages by its own checks (never the library's). And the
 * valid neighbours of each case still go through, to the fake server's satisfaction.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { InvalidParamsError } from '../../src/errors.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

type Msg = { role: 'user' | 'assistant'; content: unknown };
const U = (content: unknown): Msg => ({ role: 'user', content });
const A = (content: unknown): Msg => ({ role: 'assistant', content });
const use = (id: string, extra: Record<string, unknown> = {}) => ({ type: 'tool_use', id, name: 'Read', input: { path: 'a.ts' }, ...extra });
const result = (id: string, content: unknown = 'file a') => ({ type: 'tool_result', tool_use_id: id, content });
const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' } }];
const body = (messages: Msg[], extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, tools, messages, ...extra });

const run = (messages: Msg[], extra: Record<string, unknown> = {}) =>
  prepare(body(messages, extra) as never, { conversationId: 'c', store: new MemoryConversationStore() });

async function refusal(messages: Msg[], extra: Record<string, unknown> = {}): Promise<InvalidParamsError> {
  const err = await run(messages, extra).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidParamsError);
  return err as InvalidParamsError;
}

describe('prepare refuses messages the API refuses, naming where', () => {
  it.each<[string, Msg[], string, RegExp]>([
    [
      'tool results that answer only some tool_use blocks',
      [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')])],
      'messages[2]',
      /tool_use toolu_2 of the previous assistant message has no tool_result/,
    ],
  ])('%s', async (_, messages, where, what) => {
    // The oracle first: the fake server refuses these messages as they are.
    expect(validateRequest(body(messages))).not.toBeNull();
    const err = await refusal(messages);
    expect(err.where).toBe(where);
    expect(err.message).toMatch(what);
  });
});

describe('and lets their valid neighbours through', () => {
  it.each<[string, Msg[]]>([
    [
      'tool results split over two user messages (the API merges consecutive user messages)',
      [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')]), U([result('toolu_2')])],
    ],
    ['every tool_use answered', [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_2'), result('toolu_1')])]],
  ])('%s', async (_, messages) => {
    expect(validateRequest(body(messages))).toBeNull();
    const { params } = await run(messages);
    expect(validateRequest(params)).toBeNull();
  });
});

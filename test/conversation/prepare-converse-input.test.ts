/**
 * prepareConverse and recordConverseUsage given what is not Converse-shaped (a JavaScript loop, or params carried
 * over from the Messages API: `content: 'Hi'`, `system: '…'`, a `system` role): a typed error naming the field, with
 * the Converse shape to send. Before, a raw TypeError (`content.flatMap is not a function`) named nothing, and a
 * message with another role was sent as a user message.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepareConverse, recordConverseUsage } from '../../src/conversation/prepare-converse.js';
import { InvalidParamsError } from '../../src/errors.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const hi = { role: 'user', content: [{ text: 'Hi' }] };

describe('prepareConverse: what is not Converse-shaped', () => {
  const bad: [string, Record<string, unknown>, string, RegExp][] = [
    ['messages is not an array', { messages: { role: 'user' } }, 'messages', /expected an array of Converse messages/],
    ['a message is not an object', { messages: [null] }, 'messages[0]', /expected a Converse message/],
    [
      "a message's content is a string (the Messages API's shape)",
      { messages: [{ role: 'user', content: 'Hi' }] },
      'messages[0].content',
      /\[\{ text: "Hi" \}\]/,
    ],
    ['a message with no content', { messages: [{ role: 'user' }] }, 'messages[0].content', /expected an array of Converse content blocks/],
    ['a content block is a string', { messages: [{ role: 'user', content: ['Hi'] }] }, 'messages[0].content[0]', /expected a Converse content block/],
    [
      'a system role in messages',
      { messages: [{ role: 'system', content: [{ text: 'Be brief.' }] }, hi] },
      'messages[0].role',
      /"user" or "assistant".*system/,
    ],
    ['a message without a role', { messages: [{ content: [{ text: 'Hi' }] }] }, 'messages[0].role', /"user" or "assistant"/],
    ['system is a string', { system: 'Be brief.', messages: [hi] }, 'system', /\[\{ text: "Be brief\." \}\]/],
    ['toolConfig.tools is not an array', { toolConfig: { tools: { toolSpec: {} } }, messages: [hi] }, 'toolConfig.tools', /expected an array/],
  ];
  for (const [name, input, where, message] of bad) {
    it(`${name}: InvalidParamsError at ${where}`, async () => {
      const err = await prepareConverse({ modelId: ID, ...input } as never, { conversationId: 'c', store: new MemoryConversationStore() }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InvalidParamsError);
      expect((err as InvalidParamsError).where).toBe(where);
      expect((err as Error).message).toMatch(message);
    });
  }
});

describe('recordConverseUsage: what is not a Converse response', () => {
  it('undefined or a string: InvalidParamsError naming the response; a response without usage is still false', async () => {
    const ref = { conversationId: 'c', store: new MemoryConversationStore() };
    for (const value of [undefined, null, 'done']) {
      const err = await recordConverseUsage(value as never, ref).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidParamsError);
      expect((err as InvalidParamsError).where).toBe('response');
    }
    expect(await recordConverseUsage({}, ref)).toBe(false);
  });
});

/**
 * createRecallTool took options that can never work and failed only when the model called `recall`, inside the
 * tool's execute: the AI SDK hands that error to the model as the tool's output, so the user never saw it. A
 * conversationId given as the middleware's function form (`(call) => …`, which cachepointMiddleware accepts) loaded
 * nothing ("conversation "(call) => …" has nothing stored yet"); an un-awaited createRedisConversationStore(…) gave
 * "store.load is not a function". Now an InvalidOptionError naming the option when the tool is made.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { createRecallTool, type RecallToolOptions } from '../../../src/integrations/ai-sdk/index.js';

function refused(options: unknown, option: string, says: RegExp): void {
  let error: unknown;
  try {
    createRecallTool(options as RecallToolOptions);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidOptionError);
  expect((error as InvalidOptionError).option).toBe(option);
  expect((error as Error).message).toMatch(says);
}

describe('createRecallTool: options that can never work', () => {
  it.each([
    ['the middleware function form', () => 'chat-42'],
    ['a number', 42],
    ['an empty string', ''],
    ['nothing', undefined],
  ])('a conversationId that is %s is refused', (_, conversationId) => {
    refused({ conversationId }, 'conversationId', /a non-empty string/);
  });

  it('a store that is not one (an un-awaited Promise, {}) is refused naming store', () => {
    refused({ conversationId: 'chat-42', store: Promise.resolve(new MemoryConversationStore()) }, 'store', /await createRedisConversationStore/);
    refused({ conversationId: 'chat-42', store: {} }, 'store', /load\(\) and save\(\)/);
    refused(undefined, 'options', /conversationId/);
  });

  it('takes a string id and a store (control)', async () => {
    const tool = createRecallTool({ conversationId: 'chat-42', store: new MemoryConversationStore() });
    await expect((tool.execute as (i: unknown, o: unknown) => Promise<string>)({ path: 'turns/1/user/0' }, {})).rejects.toThrow(/nothing stored yet/);
  });
});

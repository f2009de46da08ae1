/**
 * `messages` that is not an array: a new user's first mistakes (one message object instead of a list, the user's
 * text as a string, the field left out) were all "messages: at least one message is required", which sends them
 * looking for an empty array they never wrote. The error now says what it got and what to send.
 */
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/errors.js';
import { prepare } from '../../src/conversation/prepare.js';

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024 };
const refused = async (messages: unknown) => {
  const err = await prepare({ ...base, messages } as never, { conversationId: 'c' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidParamsError);
  expect((err as InvalidParamsError).where).toBe('messages');
  return (err as Error).message;
};

describe('messages that is not an array of messages', () => {
  it('one message object: says to wrap it in an array', async () => {
    expect(await refused({ role: 'user', content: 'Hi' })).toBe('messages: expected an array of messages, got one message object: send [{ role, content }]');
  });
  it('a string: says it wants messages, not the text', async () => {
    expect(await refused('Hi')).toBe("messages: expected an array of messages, got a string: send [{ role: 'user', content: '…' }]");
  });
  it('left out: says it is missing', async () => {
    expect(await refused(undefined)).toBe('messages: expected an array of messages, got undefined');
  });
  it('an empty array keeps its message', async () => {
    expect(await refused([])).toBe('messages: at least one message is required');
  });
});

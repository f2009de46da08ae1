/**
 * The client `Session.step` / `Session.stream` are given is checked before anything is rendered or sent: a client
 * with no `messages.create` (an OpenAI client, an AI SDK model) or, to stream, no `messages.stream`, is an
 * InvalidOptionError that says what to pass instead (it was a bare TypeError from inside the call: "Cannot read
 * properties of undefined (reading 'create')"), and the session is as it was.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { Session } from '../../src/session/session.js';
import type { MessagesClient } from '../../src/session/client.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

function session(): Session {
  return new Session({ model: 'claude-sonnet-4-6', instructions: INSTRUCTIONS, tools: TOOLS, now: () => 1_000 }).startTurn('Fix the test.');
}

async function refusal(run: () => Promise<unknown>): Promise<InvalidOptionError> {
  // Thrown or rejected: session.stream() refuses at the call, step() in its promise.
  const err = await Promise.resolve()
    .then(run)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(InvalidOptionError);
  return err as InvalidOptionError;
}

describe('Session: a client that cannot send Messages requests', () => {
  it('an OpenAI client: refused before rendering, with where OpenAI goes instead', async () => {
    const s = session();
    const before = s.state;
    const openai = new OpenAI({ apiKey: 'test' }) as unknown as MessagesClient;
    for (const run of [() => s.step(openai), () => s.step(openai, {}, { stream: true }), () => s.stream(openai).finalMessage()]) {
      const err = await refusal(run);
      expect(err.option).toBe('client');
      expect(err.message).toMatch(/messages\.create/);
      expect(err.message).toMatch(/toOpenAIResponses/);
    }
    expect(s.state).toBe(before);
  });

  it('a client without messages.stream, asked to stream: refused, with stream: false as the way out', async () => {
    const s = session();
    const before = s.state;
    const createOnly = { messages: { create: async () => ({}) } } as unknown as MessagesClient;
    for (const run of [() => s.step(createOnly, {}, { stream: true }), () => s.stream(createOnly).finalMessage()]) {
      const err = await refusal(run);
      expect(err.option).toBe('client');
      expect(err.message).toMatch(/messages\.stream\(\).*stream: false/);
    }
    expect(s.state).toBe(before);
  });
});

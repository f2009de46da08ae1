import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';

const MODEL = 'claude-sonnet-4-6';
const SYSTEM = 'You are a meticulous code reviewer. Explain every finding.';
const TOOLS: Tool[] = [{ name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const TURN_1: MessageParam[] = [{ role: 'user', content: 'Review src/main.ts please, it is long and has many functions.' }];

let server: FakeMessagesServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startFakeServer({ script: Array.from({ length: 40 }, () => [{ type: 'text' as const, text: 'Looks fine.' }]) });
  client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(() => server.close());

function create(params: Partial<MessageCreateParamsNonStreaming>, previous: string | null): Promise<Message> {
  return client.messages.create({
    model: MODEL,
    max_tokens: 32,
    system: SYSTEM,
    tools: TOOLS,
    messages: TURN_1,
    diagnostics: { previous_message_id: previous },
    ...params,
  });
}

/** The first turn and a follow-up that only appends to it. */
async function firstTurn(): Promise<Message> {
  const first = await create({}, null);
  expect(first.diagnostics).toBeNull();
  return first;
}

const follow = (first: Message): MessageParam[] => [...TURN_1, { role: 'assistant', content: first.content }, { role: 'user', content: 'Now the tests.' }];

describe('cache diagnostics', () => {
  it('answers null when the request only appends messages', async () => {
    const first = await firstTurn();
    const second = await create({ messages: follow(first) }, first.id);
    expect(second.diagnostics).toBeNull();
  });

  it('ignores a moved cache marker (the marker is not part of the prefix)', async () => {
    const first = await firstTurn();
    const marked: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: String(TURN_1[0]?.content), cache_control: { type: 'ephemeral' } }] }];
    const second = await create({ messages: marked }, first.id);
    expect(second.diagnostics).toBeNull();
  });

  it('answers previous_message_not_found for an unknown id', async () => {
    const msg = await create({}, 'msg_does_not_exist');
    expect(msg.diagnostics).toEqual({ cache_miss_reason: { type: 'previous_message_not_found' } });
  });

  it('answers previous_message_not_found when the previous request did not opt in', async () => {
    const plain = await client.messages.create({ model: MODEL, max_tokens: 32, system: SYSTEM, tools: TOOLS, messages: TURN_1 });
    expect(plain.diagnostics).toBeNull();
    const msg = await create({}, plain.id);
    expect(msg.diagnostics?.cache_miss_reason?.type).toBe('previous_message_not_found');
  });

  it('answers model_changed with the whole previous prompt as missed tokens', async () => {
    const first = await firstTurn();
    const counted = await client.messages.countTokens({ model: MODEL, system: SYSTEM, tools: TOOLS, messages: TURN_1 });
    const msg = await create({ model: 'claude-opus-4-8' }, first.id);
    expect(msg.diagnostics).toEqual({ cache_miss_reason: { type: 'model_changed', cache_missed_input_tokens: counted.input_tokens } });
  });

  it('answers tools_changed when a tool is added', async () => {
    const first = await firstTurn();
    const tools: Tool[] = [...TOOLS, { name: 'Grep', input_schema: { type: 'object' } }];
    const msg = await create({ tools }, first.id);
    expect(msg.diagnostics?.cache_miss_reason?.type).toBe('tools_changed');
  });

  it('answers system_changed with the tokens after the tools as missed', async () => {
    const first = await firstTurn();
    const all = await client.messages.countTokens({ model: MODEL, system: SYSTEM, tools: TOOLS, messages: TURN_1 });
    const toolsOnly = await client.messages.countTokens({ model: MODEL, tools: TOOLS, messages: [{ role: 'user', content: 'x' }] });
    const xOnly = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
    const msg = await create({ system: `${SYSTEM} Today is Monday.` }, first.id);
    const missed = all.input_tokens - (toolsOnly.input_tokens - xOnly.input_tokens);
    expect(msg.diagnostics).toEqual({ cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: missed } });
  });

  it('answers messages_changed when an earlier message was edited', async () => {
    const first = await firstTurn();
    const second = await create({ messages: follow(first) }, first.id);
    const edited: MessageParam[] = [
      { role: 'user', content: 'Review src/app.ts please.' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'Now the tests.' },
    ];
    const third = await create({ messages: edited }, second.id);
    const reason = third.diagnostics?.cache_miss_reason;
    expect(reason?.type).toBe('messages_changed');
    expect(reason !== null && reason !== undefined && 'cache_missed_input_tokens' in reason ? reason.cache_missed_input_tokens : 0).toBeGreaterThan(0);
  });

  it('answers unavailable when only tool_choice changed', async () => {
    const first = await firstTurn();
    const msg = await create({ tool_choice: { type: 'any' } }, first.id);
    expect(msg.diagnostics).toEqual({ cache_miss_reason: { type: 'unavailable' } });
  });

  it('carries the diagnostics in the streamed message_start', async () => {
    const first = await firstTurn();
    const final = await client.messages
      .stream({ model: 'claude-opus-4-8', max_tokens: 32, system: SYSTEM, tools: TOOLS, messages: TURN_1, diagnostics: { previous_message_id: first.id } })
      .finalMessage();
    expect(final.diagnostics?.cache_miss_reason?.type).toBe('model_changed');
  });
});

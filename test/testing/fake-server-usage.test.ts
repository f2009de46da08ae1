import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer, type FakeServerOptions } from '../../src/testing/fake-server.js';
import type { UsageModel } from '../../src/testing/fake-server-usage.js';

const MODEL = 'claude-sonnet-4-6';
let server: FakeMessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: FakeServerOptions): Promise<Anthropic> {
  server = await startFakeServer(options);
  return new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
}

const reply = (text: string) => [{ type: 'text' as const, text }];
const hello: MessageParam[] = [{ role: 'user', content: 'Hello' }];

describe('usage models', () => {
  it('reports exactly what the usage model answers, at the injected clock, and records its explanation', async () => {
    const seen: { params: MessageCreateParamsBase; at: number }[] = [];
    const model: UsageModel = {
      send(params, at) {
        seen.push({ params, at });
        return {
          usage: {
            input_tokens: 11,
            cache_creation_input_tokens: 300,
            cache_read_input_tokens: 1200,
            cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
          },
          explain: { why: 'stand-in' },
        };
      },
    };
    let clock = 1_000_000;
    const client = await start({ usageModel: model, now: () => clock, script: [reply('a'), reply('b')] });
    const first = await client.messages.create({ model: MODEL, max_tokens: 16, messages: hello });
    clock += 6 * 60_000;
    const second = await client.messages.stream({ model: MODEL, max_tokens: 16, messages: hello }).finalMessage();
    for (const msg of [first, second]) {
      expect(msg.usage).toMatchObject({
        input_tokens: 11,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 1200,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      });
    }
    expect(seen.map((s) => s.at)).toEqual([1_000_000, 1_360_000]);
    expect(seen[0]?.params.messages).toEqual(hello);
    expect(server?.requests.map((r) => r.at)).toEqual([1_000_000, 1_360_000]);
    expect(server?.requests[1]?.explain).toEqual({ why: 'stand-in' });
  });

  it('answers 400 with the message of a usage model that refuses, leaving the script in place', async () => {
    const model: UsageModel = { send: () => ({ rejected: { message: 'the simulator refuses this' } }) };
    const client = await start({ usageModel: model, script: [reply('never')] });
    const err = await client.messages.create({ model: MODEL, max_tokens: 16, messages: hello }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).apiMessage).toBe('the simulator refuses this');
    expect(server?.remaining).toBe(1);
  });

  it('does not show the usage model a request that failed validation or a scripted error', async () => {
    let calls = 0;
    const model: UsageModel = {
      send: () => {
        calls++;
        return { usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } } };
      },
    };
    const client = await start({ usageModel: model, script: [{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, reply('ok')] });
    await client.messages.create({ model: MODEL, max_tokens: 16, messages: [] }).catch(() => undefined);
    await client.messages.create({ model: MODEL, max_tokens: 16, messages: hello }).catch(() => undefined);
    expect(calls).toBe(0);
    await client.messages.create({ model: MODEL, max_tokens: 16, messages: hello });
    expect(calls).toBe(1);
  });
});

/** A long, varied system prompt: well above every model's minimum cacheable length. */
function longSystem(): TextBlockParam[] {
  const lines = Array.from({ length: 400 }, (_, i) => `Rule ${i}: when reviewing module ${i * 7}, check invariant ${i % 13} and report findings with line numbers.`);
  return [{ type: 'text', text: lines.join('\n'), cache_control: { type: 'ephemeral' } }];
}

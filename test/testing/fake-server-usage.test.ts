import Anthropic, { BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer, type FakeServerOptions } from '../../src/testing/fake-server.js';
import { noCacheUsageModel, type UsageModel } from '../../src/testing/fake-server-usage.js';
import { CacheSimulator } from '../../src/sim/simulator.js';

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
        return {
          usage: {
            input_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          },
        };
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
  const lines = Array.from(
    { length: 400 },
    (_, i) => `Rule ${i}: when reviewing module ${i * 7}, check invariant ${i % 13} and report findings with line numbers.`,
  );
  return [{ type: 'text', text: lines.join('\n'), cache_control: { type: 'ephemeral' } }];
}

describe('with the provider cache simulator', () => {
  const sys = longSystem();

  it('shows a cache read on the second request of a growing conversation with a marker (the default usage model)', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const client = await start({ now: () => clock, script: [reply('First answer.'), reply('Second answer.')] });
    const turn1: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Review module 7.', cache_control: { type: 'ephemeral' } }] }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 64, system: sys, messages: turn1 });
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1000);
    expect(first.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(first.usage.cache_creation_input_tokens);

    clock += 30_000;
    const turn2: MessageParam[] = [
      { role: 'user', content: 'Review module 7.' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'text', text: 'And module 14?', cache_control: { type: 'ephemeral' } }] },
    ];
    const second = await client.messages.create({ model: MODEL, max_tokens: 64, system: sys, messages: turn2 });
    // Everything the first request wrote is read; only the new turn is written.
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_creation_input_tokens).toBeLessThan(100);
    const total = (u: typeof second.usage) => u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    expect(total(second.usage)).toBe((await client.messages.countTokens({ model: MODEL, system: sys, messages: turn2 })).input_tokens);
    expect(server?.requests[1]?.explain).toMatchObject({ read: { tokens: first.usage.cache_creation_input_tokens } });
  });

  it('misses after the 5-minute TTL on the injected clock, and the 1h entry survives it', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const client = await start({ usageModel: new CacheSimulator(), now: () => clock, script: [reply('a'), reply('b'), reply('c')] });
    const sys1h: TextBlockParam[] = [{ ...sys[0]!, cache_control: { type: 'ephemeral', ttl: '1h' } }];
    const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Go.', cache_control: { type: 'ephemeral' } }] }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 16, system: sys1h, messages });
    const split = first.usage.cache_creation;
    expect(split?.ephemeral_1h_input_tokens).toBeGreaterThan(1000);
    expect(split?.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    expect((split?.ephemeral_1h_input_tokens ?? 0) + (split?.ephemeral_5m_input_tokens ?? 0)).toBe(first.usage.cache_creation_input_tokens);

    clock += 6 * 60_000;
    const later = await client.messages.create({ model: MODEL, max_tokens: 16, system: sys1h, messages });
    // The 5m entry at the message expired; the 1h system entry is read.
    expect(later.usage.cache_read_input_tokens).toBe(split?.ephemeral_1h_input_tokens);
    expect(later.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(split?.ephemeral_5m_input_tokens);

    clock += 61 * 60_000;
    const cold = await client.messages.create({ model: MODEL, max_tokens: 16, system: sys1h, messages });
    expect(cold.usage.cache_read_input_tokens).toBe(0);
  });

  it('answers an unknown model with 404 not_found_error', async () => {
    const client = await start({ script: [reply('x')] });
    const err = await client.messages.create({ model: 'claude-unknown-9', max_tokens: 16, messages: hello }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).apiMessage).toBe('model: claude-unknown-9');
  });

  it('accepts any model name with noCacheUsageModel and bills everything as input', async () => {
    const client = await start({ usageModel: noCacheUsageModel(), script: [reply('x')] });
    const msg = await client.messages.create({ model: 'my-local-model', max_tokens: 16, system: sys, messages: hello });
    expect(msg.usage.cache_creation_input_tokens).toBe(0);
    expect(msg.usage.input_tokens).toBe((await client.messages.countTokens({ model: 'my-local-model', system: sys, messages: hello })).input_tokens);
  });
});

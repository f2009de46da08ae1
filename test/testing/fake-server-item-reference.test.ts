/**
 * The Responses API takes the output items of a stored response back by reference (`{ type: 'item_reference', id }`,
 * openai 6.49's `ResponseInputItem.ItemReference`: "An internal identifier for an item to reference").
 * `@ai-sdk/openai` 2.x (the ai 5 provider) stores by default (`store ?? true` in its code) and then sends every
 * earlier assistant message and function call that way, so a default `openai.responses(…)` tool loop of ai 5
 * against the fake server failed on its second step ("No tool call found for function call output with call_id …"),
 * where the real API goes on. The fake server now keeps the output items of the responses it stored and reads a
 * reference as that item; an id it never returned (or one of a response sent with `store: false`) is refused.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('the fake Responses route and item references', () => {
  it("a stored response's items go back by reference: the request reads as the one with the items in full, and reads the cache", async () => {
    let clock = 0;
    const server = await startFakeServer({
      script: [
        [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a.ts' } },
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
      now: () => (clock += 5_000),
    });
    servers.push(server);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const instructions = `You are a careful coding agent. ${'Follow the house rules. '.repeat(300)}`;
    const tools = [{ type: 'function' as const, name: 'Read', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false }];
    const user = { role: 'user' as const, content: 'Read a.ts' };
    const first = await client.responses.create({ model: 'gpt-5.4', instructions, tools, input: [user], prompt_cache_key: 'k' });
    const [message, call] = first.output as unknown as [{ id: string }, { id: string; call_id: string }];
    // What @ai-sdk/openai 2.x (ai 5) sends by default for the earlier assistant items: references.
    const second = await client.responses.create({
      model: 'gpt-5.4',
      instructions,
      tools,
      prompt_cache_key: 'k',
      input: [
        user,
        { type: 'item_reference', id: message.id },
        { type: 'item_reference', id: call.id },
        { type: 'function_call_output', call_id: call.call_id, output: 'export {}' },
      ],
    });
    expect(second.output_text).toBe('Done.');
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('refuses a reference to an item it never returned, and one of a response sent with store: false', async () => {
    const server = await startFakeServer({
      script: [[{ type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a.ts' } }], [{ type: 'text', text: 'ok' }]],
    });
    servers.push(server);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-5.4', input: 'Read a.ts', store: false });
    const call = first.output[0] as { id: string; call_id: string };
    const refused = await client.responses
      .create({
        model: 'gpt-5.4',
        input: [
          { role: 'user', content: 'Read a.ts' },
          { type: 'item_reference', id: call.id },
          { type: 'function_call_output', call_id: call.call_id, output: 'x' },
        ],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toContain(`Item with id '${call.id}' not found.`);
  });
});

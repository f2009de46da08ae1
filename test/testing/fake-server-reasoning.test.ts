/**
 * The fake Responses route answers a scripted thinking block with a `reasoning` output item, as a reasoning model
 * (the GPT-5 family) does (openai 6.49's ResponseReasoningItem: id, summary, encrypted_content "populated when a
 * response is generated with reasoning.encrypted_content in the include parameter"); streamed, with the summary
 * events. Without it, no test of the OpenAI doors saw the reasoning parts every GPT-5 answer brings.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const script = () => [
  [
    { type: 'thinking' as const, thinking: 'Read it first.' },
    { type: 'tool_use' as const, id: 'call_1', name: 'Read', input: { path: 'a.ts' } },
  ],
  [{ type: 'text' as const, text: 'Done.' }],
];

describe('the fake Responses route and reasoning items', () => {
  it('a scripted thinking block is a reasoning item before the call; by reference it goes back as stored', async () => {
    const server = await startFakeServer({ script: script() });
    servers.push(server);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-5.4', input: 'Read a.ts' });
    expect(first.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: 'Read it first.' }]);
    expect(reasoning.encrypted_content).toBeUndefined();
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client.responses.create({
      model: 'gpt-5.4',
      input: [
        { role: 'user', content: 'Read a.ts' },
        { type: 'item_reference', id: reasoning.id },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.call_id, output: 'export const a = 1;' },
      ],
    });
    expect(second.output.map((i) => i.type)).toEqual(['message']);
  });

  it('with include reasoning.encrypted_content it carries encrypted content; streamed, the summary comes as its events', async () => {
    const server = await startFakeServer({ script: script() });
    servers.push(server);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const stream = await client.responses.create({
      model: 'gpt-5.4',
      input: 'Read a.ts',
      include: ['reasoning.encrypted_content'],
      store: false,
      stream: true,
    });
    const events: string[] = [];
    let summary = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      events.push(e.type);
      if (e.type === 'response.reasoning_summary_text.delta') summary += e.delta;
      if (e.type === 'response.completed') done = e.response;
    }
    expect(summary).toBe('Read it first.');
    expect(events.slice(0, 7)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    expect(typeof (done!.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content).toBe('string');
  });
});

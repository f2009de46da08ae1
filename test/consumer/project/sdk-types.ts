/**
 * Compiled (never run) next to each supported @anthropic-ai/sdk version by
 * sdk-versions.consumer.ts: what a user builds with that SDK's own types is
 * accepted by cachepoint's doors, and what `prepare`, `Session.request` and
 * `toAnthropic` hand back is accepted by that SDK's `client.messages.create`.
 * (The latest version is also checked shape by shape in
 * test/providers/anthropic-types.test-d.ts.)
 */
import type Anthropic from '@anthropic-ai/sdk';
import * as cp from 'cachepoint';

declare const client: Anthropic;

// The SDK's shapes assign to ours.
export const shapes = (
  params: Anthropic.MessageCreateParamsNonStreaming,
  block: Anthropic.ContentBlockParam,
  text: Anthropic.TextBlockParam,
  result: Anthropic.ToolResultBlockParam,
  tool: Anthropic.ToolUnion,
  message: Anthropic.Message,
): [cp.MessageCreateParamsNonStreaming, cp.ContentBlockParam, cp.TextBlockParam, cp.ToolResultBlockParam, cp.ToolUnion, cp.Message] => [
  params,
  block,
  text,
  result,
  tool,
  message,
];

// prepare: the SDK's params in, that SDK's create params out.
export async function dropIn(params: Anthropic.MessageCreateParamsNonStreaming): Promise<Anthropic.Message> {
  const prepared = await cp.prepare(params, { conversationId: 'c' });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello' }];
  const tools: Anthropic.Tool[] = [];
  const again = await cp.prepare({ model: 'claude-sonnet-4-6', max_tokens: 512, system: 'You help.', tools, messages }, { conversationId: 'c' });
  await client.messages.create(again.params);
  return client.messages.create(prepared.params, { headers: prepared.headers });
}

// prepare with inline params (no SDK type named): the literals survive, so the result goes to create and stream.
export async function inline(): Promise<Anthropic.Message> {
  const { params } = await cp.prepare(
    {
      model: 'claude-sonnet-4-6',
      max_tokens: 512,
      tools: [
        { name: 'Read', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
          ],
        },
      ],
    },
    { conversationId: 'c' },
  );
  await client.messages.stream(params).finalMessage();
  return client.messages.create(params);
}

// Session: the SDK's tools, blocks, results, responses and client in; its request to the SDK.
export async function session(tools: Anthropic.Tool[], blocks: Anthropic.ContentBlockParam[], results: Anthropic.ToolResultBlockParam[]): Promise<void> {
  const s = new cp.Session({ model: 'claude-sonnet-4-6', instructions: [{ type: 'text', text: 'You help.' } as Anthropic.TextBlockParam], tools });
  s.startTurn(blocks).setTail(blocks);
  const message: Anthropic.Message = await client.messages.create(await s.request({ max_tokens: 512 }));
  s.recordResponse(message).recordToolResults(results);
  // step / stream give back this SDK version's Message: it goes into this version's history as it is.
  const stepped: Anthropic.Message = await s.step(client);
  const streamed: Anthropic.Message = await s.stream(client).finalMessage();
  const history: Anthropic.MessageParam[] = [
    { role: 'assistant', content: stepped.content },
    { role: 'assistant', content: streamed.content },
  ];
  void history;
}

// The pure functions: the SDK's input in, toAnthropic's params to the SDK.
export async function pure(
  message: Anthropic.Message,
  blocks: Anthropic.ContentBlockParam[],
  results: Anthropic.ToolResultBlockParam[],
  tools: Anthropic.Tool[],
) {
  const state = cp.createTimeline({ model: 'claude-sonnet-4-6', instructions: ['You help.'], tools });
  const next = cp.appendResponse(cp.setTail(cp.appendToolResults(cp.appendResponse(cp.startTurn(state, blocks), message), results), blocks), message.content);
  return client.messages.create(cp.toAnthropic(cp.render(next), { max_tokens: 512 }));
}

// Any version's client is a client of the summarizer and the exact counter.
export const clients = [cp.llmSummarizer({ client }), cp.exactCounter({ client, model: 'claude-sonnet-4-6' })];

// The tool results cachepoint builds (recall, the tool cache, Session.runTools) go into this version's history as they
// are: the README's drop-in loop pushes recallToolResult's block into Anthropic.ToolResultBlockParam[].
export async function results(call: Anthropic.ToolUseBlock, message: Anthropic.Message, state: cp.TimelineState): Promise<Anthropic.MessageParam[]> {
  const own: Anthropic.ToolResultBlockParam[] = [cp.recallToolResult(call.id, call.input, { state })];
  const { content, is_error } = cp.handleRecall(call.input, { state });
  own.push({ type: 'tool_result', tool_use_id: call.id, content, ...(is_error ? { is_error } : {}) });
  const cached: Anthropic.ToolResultBlockParam[] = await new cp.ToolCache().runToolUses(message.content, {}, { scope: '' });
  const ran: Anthropic.ToolResultBlockParam[] = await new cp.Session({ model: 'claude-sonnet-4-6', instructions: ['You help.'] }).runTools();
  return [
    { role: 'user', content: own },
    { role: 'user', content: cached },
    { role: 'user', content: ran },
  ];
}

/**
 * Type tests: cachepoint's own Messages API types (src/providers/anthropic-types.ts)
 * against the installed @anthropic-ai/sdk (the latest supported version; the
 * oldest is compiled by test/consumer/project/sdk-types.ts in the consumer
 * test). Both ways: what a user builds with the SDK's types is accepted by
 * every door, and what cachepoint hands back is accepted by the SDK's
 * `client.messages.create`. Checked by `npm run typecheck`; nothing here runs.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type * as Sdk from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expectTypeOf, it } from 'vitest';
import {
  appendResponse,
  appendToolResults,
  createTimeline,
  exactCounter,
  llmSummarizer,
  prepare,
  render,
  Session,
  setTail,
  startTurn,
  toAnthropic,
} from '../../src/index.js';
import type * as Ours from '../../src/providers/anthropic-types.js';

declare const client: Anthropic;

/** `true` when A assigns to B. */
type Assigns<A, B> = [A] extends [B] ? true : false;

/**
 * [the SDK's shape, ours, direction]: `both` ways for what cachepoint takes and
 * gives back; `read` (the SDK's assigns to ours) for what it only reads:
 * responses and count params; `give` (ours assigns to the SDK's) for what it
 * only builds.
 */
interface Pairs {
  ContentBlockParam: [Sdk.ContentBlockParam, Ours.ContentBlockParam, 'both'];
  TextBlockParam: [Sdk.TextBlockParam, Ours.TextBlockParam, 'both'];
  ToolResultBlockParam: [Sdk.ToolResultBlockParam, Ours.ToolResultBlockParam, 'both'];
  ToolUseBlockParam: [Sdk.ToolUseBlockParam, Ours.ToolUseBlockParam, 'both'];
  ThinkingBlockParam: [Sdk.ThinkingBlockParam, Ours.ThinkingBlockParam, 'both'];
  CacheControlEphemeral: [Sdk.CacheControlEphemeral, Ours.CacheControlEphemeral, 'both'];
  ImageBlockParam: [Sdk.ImageBlockParam, Ours.ImageBlockParam, 'both'];
  DocumentBlockParam: [Sdk.DocumentBlockParam, Ours.DocumentBlockParam, 'both'];
  SearchResultBlockParam: [Sdk.SearchResultBlockParam, Ours.SearchResultBlockParam, 'both'];
  RedactedThinkingBlockParam: [Sdk.RedactedThinkingBlockParam, Ours.RedactedThinkingBlockParam, 'both'];
  ServerToolUseBlockParam: [Sdk.ServerToolUseBlockParam, Ours.ServerToolUseBlockParam, 'both'];
  ContainerUploadBlockParam: [Sdk.ContainerUploadBlockParam, Ours.ContainerUploadBlockParam, 'both'];
  ToolReferenceBlockParam: [Sdk.ToolReferenceBlockParam, Ours.ToolReferenceBlockParam, 'both'];
  BrowserStateBlockParam: [Sdk.BrowserStateBlockParam, Ours.BrowserStateBlockParam, 'both'];
  MessageParam: [Sdk.MessageParam, Ours.MessageParam, 'both'];
  Tool: [Sdk.Tool, Ours.Tool, 'both'];
  ToolUnion: [Sdk.ToolUnion, Ours.ToolUnion, 'both'];
  MessageCreateParamsBase: [Sdk.MessageCreateParamsBase, Ours.MessageCreateParamsBase, 'both'];
  MessageCreateParamsNonStreaming: [Sdk.MessageCreateParamsNonStreaming, Ours.MessageCreateParamsNonStreaming, 'both'];
  Message: [Sdk.Message, Ours.Message, 'read'];
  ContentBlock: [Sdk.ContentBlock, Ours.ContentBlock, 'read'];
  Usage: [Sdk.Usage, Ours.Usage, 'read'];
  StopReason: [Sdk.StopReason, Ours.StopReason, 'read'];
  MessageTokensCount: [Sdk.MessageTokensCount, Ours.MessageTokensCount, 'read'];
  MessageCountTokensParams: [Sdk.MessageCountTokensParams, Ours.MessageCountTokensParams, 'read'];
  AnthropicRequestParams: [Sdk.MessageCreateParamsNonStreaming, Ours.AnthropicRequestParams, 'give'];
  PortableMessageParam: [Sdk.MessageParam, Ours.PortableMessageParam, 'give'];
  PortableToolUnion: [Sdk.ToolUnion, Ours.PortableToolUnion, 'give'];
}

/** [the SDK's assigns to ours, ours assigns to the SDK's], `true` where the direction does not apply. */
type Directions<P extends [unknown, unknown, 'both' | 'read' | 'give']> = [
  P[2] extends 'give' ? true : Assigns<P[0], P[1]>,
  P[2] extends 'read' ? true : Assigns<P[1], P[0]>,
];

/** The names of the pairs that do not assign as they must. */
type Failing = { [K in keyof Pairs]: Directions<Pairs[K]> extends [true, true] ? never : K }[keyof Pairs];

describe('each type assigns with the SDK', () => {
  it('both ways for what cachepoint takes and gives back, SDK to ours for what it only reads', () => {
    expectTypeOf<Failing>().toEqualTypeOf<never>();
  });

  it('the check itself fails on a shape that does not assign', () => {
    expectTypeOf<Assigns<Sdk.ToolUseBlockParam, Ours.TextBlockParam>>().toEqualTypeOf<false>();
    expectTypeOf<Assigns<Ours.ContentBlockParam, Sdk.TextBlockParam>>().toEqualTypeOf<false>();
    expectTypeOf<Assigns<Sdk.TextBlockParam, Ours.TextBlockParam>>().toEqualTypeOf<true>();
  });
});

describe('the doors take SDK-typed input and give SDK-acceptable output', () => {
  it('prepare: SDK params in, params for client.messages.create out', async () => {
    const sdkParams: Sdk.MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [] };
    const { params, headers } = await prepare(sdkParams, { conversationId: 'c' });
    const message: Sdk.Message = await client.messages.create(params, { headers });
    expectTypeOf(message).toExtend<Ours.Message>();
    // A loop whose messages are typed with the SDK's MessageParam keeps them.
    const messages: Sdk.MessageParam[] = [];
    const tools: Sdk.ToolUnion[] = [];
    const again = await prepare({ model: 'claude-sonnet-4-6', max_tokens: 1024, system: 'You help.', tools, messages }, { conversationId: 'c' });
    await client.messages.create(again.params);
    await client.messages.stream(again.params).finalMessage();
  });

  it('prepare: a beta loop (BetaMessageParam history, betas) to client.beta.messages', async () => {
    // SDK 1.16's BetaMessageParam includes BetaSystemMessageParam, whose content is optional (a system message may
    // carry only output_config) and may hold tool_addition / tool_removal blocks: a typed beta history must fit.
    const messages: Anthropic.Beta.BetaMessageParam[] = [{ role: 'user', content: 'Hi' }];
    const tools: Anthropic.Beta.BetaToolUnion[] = [];
    const { params, headers } = await prepare(
      { model: 'claude-sonnet-4-6', max_tokens: 1024, system: 'You help.', tools, messages, betas: ['token-efficient-tools-2025-02-19'] },
      { conversationId: 'c' },
    );
    const message: Anthropic.Beta.BetaMessage = await client.beta.messages.create(params, { headers });
    await client.beta.messages.stream(params, { headers }).finalMessage();
    messages.push({ role: 'assistant', content: message.content });
  });

  it('prepare: inline params (no SDK types named) still go to the SDK as they come back', async () => {
    // An object literal passed straight to prepare: its string literals (block and tool
    // kinds, image media types, thinking and tool_choice kinds) must survive inference,
    // or the params handed back no longer satisfy the SDK's literal unions.
    const { params } = await prepare(
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        system: [{ type: 'text', text: 'You help.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        tools: [
          { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 3, user_location: { type: 'approximate', city: 'Paris' } },
        ],
        tool_choice: { type: 'auto', disable_parallel_tool_use: true },
        thinking: { type: 'enabled', budget_tokens: 2048 },
        metadata: { user_id: 'u-1' },
        service_tier: 'auto',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'text' }] },
        ],
      },
      { conversationId: 'c' },
    );
    const message: Sdk.Message = await client.messages.create(params);
    await client.messages.stream(params).finalMessage();
    expectTypeOf(message).toExtend<Ours.Message>();
    // stream: true stays true, so create picks its streaming overload.
    const streamed = await prepare(
      { model: 'claude-sonnet-4-6', max_tokens: 1, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { conversationId: 'c' },
    );
    for await (const event of await client.messages.create(streamed.params)) expectTypeOf(event).toEqualTypeOf<Sdk.RawMessageStreamEvent>();
  });

  it('Session: SDK tools, blocks, results and client in; its request goes to the SDK', async () => {
    const tools: Sdk.Tool[] = [];
    const instructions: Sdk.TextBlockParam[] = [{ type: 'text', text: 'You help.' }];
    const session = new Session({ model: 'claude-sonnet-4-6', instructions, tools });
    const blocks: Sdk.ContentBlockParam[] = [{ type: 'text', text: 'Hello' }];
    session.startTurn(blocks).setTail(blocks);
    const message: Sdk.Message = await client.messages.create(await session.request({ max_tokens: 1024 }));
    session.recordResponse(message);
    const results: Sdk.ToolResultBlockParam[] = [];
    session.recordToolResults(results);
    // What step / stream give back is the client's own Message type (the SDK's here), not only cachepoint's.
    const stepped: Sdk.Message = await session.step(client);
    const streamed: Sdk.Message = await session.stream(client).finalMessage();
    const history: Sdk.MessageParam[] = [
      { role: 'assistant', content: stepped.content },
      { role: 'assistant', content: streamed.content },
    ];
    void history;
    // A client that does not say what it returns (unknown, any) gets cachepoint's Message.
    const loose = { messages: { create: async (_: unknown): Promise<Ours.Passthrough> => ({}) } }; // Passthrough is any
    expectTypeOf(await session.step(loose)).toEqualTypeOf<Ours.Message>();
    expectTypeOf(await session.step({ messages: { create: async (_: unknown): Promise<unknown> => ({}) } })).toEqualTypeOf<Ours.Message>();
    const toolResults: Sdk.ToolResultBlockParam[] = await session.runTools();
    expectTypeOf(toolResults).toExtend<Ours.ToolResultBlockParam[]>();
  });

  it('the pure functions: SDK input in, toAnthropic out to the SDK', async () => {
    const message: Sdk.Message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1, messages: [] });
    const blocks: Sdk.ContentBlockParam[] = [];
    const results: Sdk.ToolResultBlockParam[] = [];
    let state = createTimeline({ model: 'claude-sonnet-4-6', instructions: ['You help.'], tools: [] as Sdk.ToolUnion[] });
    state = appendToolResults(appendResponse(startTurn(state, blocks), message), results);
    state = appendResponse(setTail(state, blocks), message.content);
    await client.messages.create(toAnthropic(render(state), { max_tokens: 1024 }));
  });

  it('request fields typed as the API types them: a typo in Session / toAnthropic extras is an error', async () => {
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: ['You help.'] });
    // @ts-expect-error budget_tokens, not budget
    await session.request({ max_tokens: 1, thinking: { type: 'enabled', budget: 1024 } });
    // @ts-expect-error disable_parallel_tool_use, not disable_parallel
    await session.request({ max_tokens: 1, tool_choice: { type: 'auto', disable_parallel: true } });
    // @ts-expect-error user_id, not userId
    await session.request({ max_tokens: 1, metadata: { userId: 'u' } });
    // @ts-expect-error no tool_choice of type 'required' (that is OpenAI's)
    await session.step(client, { tool_choice: { type: 'required' } });
    // @ts-expect-error no thinking of type 'on'
    toAnthropic(render(createTimeline({ model: 'claude-sonnet-4-6', instructions: [] })), { max_tokens: 1, thinking: { type: 'on' } });
    // @ts-expect-error service_tier is 'auto' or 'standard_only'
    await session.request({ max_tokens: 1, service_tier: 'fast' });
    // @ts-expect-error effort is low..max
    await session.request({ max_tokens: 1, output_config: { effort: 'huge' } });
    // What is right still goes to the SDK's create.
    const params = await session.request({
      max_tokens: 1,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tool_choice: { type: 'tool', name: 'Read' },
      metadata: { user_id: 'u' },
      service_tier: 'auto',
      output_config: { effort: 'high' },
    });
    await client.messages.create(params);
  });

  it('usage fields typed as the API types them: a typo reading a response is an error', async () => {
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: ['You help.'] });
    const message = await session.step(client);
    // @ts-expect-error ephemeral_1h_input_tokens
    void message.usage.cache_creation?.ephemeral_1h_tokens;
    // @ts-expect-error web_search_requests
    void message.usage.server_tool_use?.web_search_request;
    expectTypeOf(message.usage.cache_creation?.ephemeral_5m_input_tokens).toEqualTypeOf<number | undefined>();
  });

  it('the SDK client is a client for the summarizer and the exact counter', () => {
    llmSummarizer({ client });
    const counter = exactCounter({ client, model: 'claude-sonnet-4-6' });
    // @ts-expect-error no thinking of type 'on' (a typo is an error here too, not a 400)
    void counter.countRequest({ messages: [], thinking: { type: 'on' } });
    const sdkCount: Sdk.MessageCountTokensParams = { model: 'claude-sonnet-4-6', messages: [], thinking: { type: 'adaptive' }, tool_choice: { type: 'none' } };
    void counter.countRequest(sdkCount);
  });
});

import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

const MODEL = 'claude-sonnet-4-6';
const EPH = { type: 'ephemeral' } as const;
const EPH_1H = { type: 'ephemeral', ttl: '1h' } as const;

let server: FakeMessagesServer;
let client: Anthropic;

beforeAll(async () => {
  // Every accepted request takes one scripted answer.
  server = await startFakeServer({ script: Array.from({ length: 50 }, () => [{ type: 'text' as const, text: 'ok' }]) });
  client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(() => server.close());

/** Sends the body as-is (the SDK's types would refuse some of the broken ones). */
function send(body: unknown) {
  return client.messages.create(body as MessageCreateParamsNonStreaming);
}

async function rejection(body: unknown): Promise<BadRequestError> {
  const err = await send(body).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BadRequestError);
  return err as BadRequestError;
}

const toolUse = (id: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: { path: 'a' } });
const toolResult = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'file a' });
const text = (t: string, extra: object = {}) => ({ type: 'text' as const, text: t, ...extra });
const body = (messages: unknown[], extra: object = {}) => ({ model: MODEL, max_tokens: 16, messages, ...extra });

const cases: [string, unknown, string][] = [
  ['a missing model', { max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, 'model: Field required'],
  ['a missing max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens: Field required'],
  [
    'a prefill on Claude 4.6+',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '{' },
    ]),
    'This model does not support assistant message prefill. The conversation must end with a user message.',
  ],
  [
    'a prefill with thinking',
    {
      ...body([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '{' },
      ]),
      model: 'claude-sonnet-4-5',
      thinking: { type: 'enabled', budget_tokens: 1024 },
    },
    'messages: a final assistant message (prefill) cannot be used with thinking enabled',
  ],
  [
    'a prefill ending with whitespace',
    {
      ...body([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'As an AI assistant, I ' },
      ]),
      model: 'claude-haiku-4-5',
    },
    'messages: final assistant content cannot end with trailing whitespace',
  ],
  ['no messages', body([]), 'messages: at least one message is required'],
  ['an unknown role', body([{ role: 'system', content: 'hi' }]), "messages.0.role: Input should be 'user' or 'assistant'"],
  ['an assistant first message', body([{ role: 'assistant', content: 'hi' }]), 'messages: first message must use the "user" role'],
  [
    'an empty message in the middle',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'x' },
    ]),
    'messages.1: all messages must have non-empty content except for the optional final assistant message',
  ],
  ['an empty text block', body([{ role: 'user', content: [text('')] }]), 'messages.0.content.0.text: text content blocks must be non-empty'],
  [
    'cache_control on an empty text block',
    body([{ role: 'user', content: [text('', { cache_control: EPH })] }]),
    'cache_control cannot be set for empty text blocks',
  ],
  [
    'cache_control on a thinking block',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's', cache_control: EPH }, text('yo')] },
      { role: 'user', content: 'go on' },
    ]),
    'messages.1.content.0.thinking.cache_control: Extra inputs are not permitted',
  ],
  [
    'cache_control on a redacted_thinking block',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xx', cache_control: EPH }, text('yo')] },
      { role: 'user', content: 'go on' },
    ]),
    'messages.1.content.0.redacted_thinking.cache_control: Extra inputs are not permitted',
  ],
  [
    'an orphaned tool_result',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: [toolResult('toolu_x')] },
    ]),
    'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
  ],
  [
    'a tool_result answering a tool_use two messages back',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('toolu_1')] },
      { role: 'user', content: [toolResult('toolu_1')] },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: [toolResult('toolu_1')] },
    ]),
    'messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1.',
  ],
  [
    'an unanswered tool_use',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('toolu_1'), toolUse('toolu_2')] },
      { role: 'user', content: [toolResult('toolu_1')] },
    ]),
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
  ],
  [
    'a tool_result after text in its message',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('toolu_1')] },
      { role: 'user', content: [text('note'), toolResult('toolu_1')] },
    ]),
    'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message.',
  ],
  [
    'duplicate tool_use ids',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('toolu_1')] },
      { role: 'user', content: [toolResult('toolu_1')] },
      { role: 'assistant', content: [toolUse('toolu_1')] },
      { role: 'user', content: [toolResult('toolu_1')] },
    ]),
    'messages.3.content.0: `tool_use` ids must be unique',
  ],
  [
    'five cache markers',
    body(
      [
        { role: 'user', content: [text('a', { cache_control: EPH })] },
        { role: 'assistant', content: [text('b', { cache_control: EPH })] },
        { role: 'user', content: [text('c', { cache_control: EPH })] },
      ],
      { system: [text('sys', { cache_control: EPH })], tools: [{ name: 'Read', input_schema: { type: 'object' }, cache_control: EPH }] },
    ),
    'A maximum of 4 blocks with cache_control may be provided. Found 5.',
  ],
  [
    'four explicit markers plus automatic caching',
    body(
      [
        { role: 'user', content: [text('a', { cache_control: EPH })] },
        { role: 'assistant', content: [text('b', { cache_control: EPH })] },
        { role: 'user', content: [text('c', { cache_control: EPH }), text('d')] },
      ],
      { system: [text('sys', { cache_control: EPH })], cache_control: EPH },
    ),
    'A maximum of 4 blocks with cache_control may be provided. Found 5.',
  ],
  [
    'a 1h marker after a 5m marker',
    body([{ role: 'user', content: [text('a', { cache_control: EPH }), text('b', { cache_control: EPH_1H })] }], {
      system: [text('sys')],
    }),
    "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
  ],
  [
    'a 1h automatic marker after an explicit 5m one',
    body([{ role: 'user', content: [text('a', { cache_control: EPH }), text('b')] }], { cache_control: EPH_1H }),
    "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
  ],
  [
    'automatic caching whose last block has an explicit marker with another TTL',
    body([{ role: 'user', content: [text('a', { cache_control: EPH_1H })] }], { cache_control: EPH }),
    "cache_control: the top-level cache_control (ttl='5m') conflicts with the explicit ttl='1h' on the last cacheable block",
  ],
  [
    'an unknown ttl',
    body([{ role: 'user', content: [text('a', { cache_control: { type: 'ephemeral', ttl: '24h' } })] }]),
    "messages.0.content.0.cache_control.ttl: Input should be '5m' or '1h'",
  ],
  [
    'a cache_control of an unknown type',
    body([{ role: 'user', content: [text('a', { cache_control: { type: 'persistent' } })] }]),
    "messages.0.content.0.cache_control.type: Input should be 'ephemeral'",
  ],
  [
    'a thinking block sent back without its signature',
    body(
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, toolUse('t1')] },
        { role: 'user', content: [toolResult('t1')] },
      ],
      { model: 'claude-sonnet-4-5' },
    ),
    'messages.1.content.0.thinking.signature: Field required',
  ],
  [
    "a base64 image labelled 'image/jpg'",
    body([{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpg', data: '/9j/4AAQ' } }, text('what is it?')] }]),
    "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
  ],
  [
    'a search_result without a title inside a tool_result',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('t1')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'search_result', source: 's', content: [text('a hit')] }] }] },
    ]),
    'messages.2.content.0.content.0.search_result.title: Field required',
  ],
  [
    'a tool_use id with characters the API does not take',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('functions.bash:0')] },
      { role: 'user', content: [toolResult('functions.bash:0')] },
    ]),
    "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
  ],
  [
    'an image without a source',
    body([{ role: 'user', content: [{ type: 'image' }, text('what is it?')] }]),
    'messages.0.content.0.image.source: Field required',
  ],
  [
    'an image whose base64 source has no data',
    body([{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }]),
    'messages.0.content.0.image.source.base64.data: Field required',
  ],
  [
    'a document source of an unknown type',
    body([{ role: 'user', content: [{ type: 'document', source: { type: 'pdf', data: 'x' } }] }]),
    "messages.0.content.0.document.source: Input tag 'pdf' found using 'type' does not match any of the expected tags: 'base64', 'text', 'content', 'url', 'file'",
  ],
  [
    'an image without a source inside a tool_result',
    body([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [toolUse('t1')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image' }] }] },
    ]),
    'messages.2.content.0.content.0.image.source: Field required',
  ],
  [
    'a block type the API does not take',
    body([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }]),
    "messages.0.content.0: Input tag 'image_url' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'advisor_tool_result', 'code_execution_tool_result', 'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', 'tool_search_tool_result', 'mcp_tool_use', 'mcp_tool_result', 'container_upload', 'compaction', 'tool_addition', 'tool_removal', 'mcp_tool_listing', 'fallback'",
  ],
];

describe('fake server validation', () => {
  it.each(cases)('answers 400 invalid_request_error for %s', async (_name, request, message) => {
    const err = await rejection(request);
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.apiMessage).toContain(message);
    // The SDK's own message is `400 <the JSON body>`, so the API message appears JSON-escaped.
    expect(err.message).toContain(JSON.stringify(message).slice(1, -1));
    expect(err.requestID).toMatch(/^req_fake_\d+$/);
  });

  it('records the rejected request with its error and consumes no scripted answer', async () => {
    const before = server.remaining;
    await rejection(body([]));
    expect(server.remaining).toBe(before);
    const last = server.requests.at(-1);
    expect(last?.status).toBe(400);
    expect(last?.error).toEqual({ status: 400, type: 'invalid_request_error', message: 'messages: at least one message is required' });
  });

  const accepted: [string, unknown][] = [
    [
      'consecutive user messages (the API merges them)',
      body([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    ],
    [
      'tool results spread over consecutive user messages',
      body([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [toolUse('toolu_1'), toolUse('toolu_2')] },
        { role: 'user', content: [toolResult('toolu_2')] },
        { role: 'user', content: [toolResult('toolu_1'), text('and a note')] },
      ]),
    ],
    [
      'a tool_use of a tool not in `tools` (as a prefill: a model before 4.6)',
      body(
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [toolUse('toolu_1')] },
        ],
        { model: 'claude-sonnet-4-5' },
      ),
    ],
    [
      'an empty final assistant message (prefill, a model before 4.6)',
      body(
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '' },
        ],
        { model: 'claude-haiku-4-5' },
      ),
    ],
    [
      'a prefill on a model before 4.6 (Bedrock id), thinking disabled',
      body(
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '{' },
        ],
        { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', thinking: { type: 'disabled' } },
      ),
    ],
    [
      'four markers, 1h before 5m',
      body(
        [
          { role: 'user', content: [text('a', { cache_control: EPH_1H })] },
          { role: 'assistant', content: [text('b', { cache_control: EPH })] },
          { role: 'user', content: [text('c', { cache_control: EPH })] },
        ],
        { system: [text('sys', { cache_control: EPH_1H })] },
      ),
    ],
    [
      'automatic caching on a block that already has the same marker (no extra slot)',
      body(
        [
          { role: 'user', content: [text('a', { cache_control: EPH })] },
          { role: 'assistant', content: [text('b', { cache_control: EPH })] },
          { role: 'user', content: [text('c', { cache_control: EPH })] },
        ],
        { system: [text('sys', { cache_control: EPH })], cache_control: EPH },
      ),
    ],
    [
      'a thinking block without a marker and a marker on the text after it',
      body([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, text('yo', { cache_control: EPH })] },
        { role: 'user', content: 'next' },
      ]),
    ],
  ];

  it.each(accepted)('accepts %s', async (_name, request) => {
    const msg = await send(request);
    expect(msg.type).toBe('message');
  });
});

describe('validateRequest', () => {
  const ok: MessageParam[] = [{ role: 'user', content: 'hi' }];

  it('returns null for a valid request', () => {
    expect(validateRequest({ model: MODEL, max_tokens: 1, messages: ok })).toBeNull();
  });

  it('does not require max_tokens for count_tokens', () => {
    expect(validateRequest({ model: MODEL, messages: ok }, 'count_tokens')).toBeNull();
    expect(validateRequest({ model: MODEL, messages: ok })).toEqual({ message: 'max_tokens: Field required' });
  });

  it('counts a marker inside tool_result content toward the limit', () => {
    const inner = { type: 'tool_result', tool_use_id: 'toolu_1', content: [text('r', { cache_control: EPH })] };
    const issue = validateRequest(
      body(
        [
          { role: 'user', content: [text('a', { cache_control: EPH })] },
          { role: 'assistant', content: [toolUse('toolu_1')] },
          { role: 'user', content: [inner, text('b', { cache_control: EPH })] },
        ],
        { system: [text('s', { cache_control: EPH })], tools: [{ name: 'Read', input_schema: { type: 'object' }, cache_control: EPH }] },
      ),
    );
    expect(issue).toEqual({ message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.' });
  });

  it('rejects max_tokens 0 with streaming (pre-warming cannot stream)', () => {
    expect(validateRequest({ model: MODEL, max_tokens: 0, stream: true, messages: ok })?.message).toContain('stream');
  });
});

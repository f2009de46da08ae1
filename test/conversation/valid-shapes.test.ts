/**
 * Valid requests the drop-in doors must not refuse (fuzz12): shapes the property generators do not produce, each one
 * the Messages API takes (SDK 1.14's request types, the API docs cited per case), given to `prepare` as an existing
 * loop's `messages` and to a Session as its edits. Every one must go through, and what goes out must pass the fake
 * server's own checks. A block rule that refused one of these would break a working loop.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import type { ContentBlockParam, Message, ToolResultBlockParam } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

type Msg = { role: 'user' | 'assistant'; content: unknown };
const U = (content: unknown): Msg => ({ role: 'user', content });
const A = (content: unknown): Msg => ({ role: 'assistant', content });
const use = (id: string, input: Record<string, unknown> = { path: 'a.ts' }) => ({ type: 'tool_use', id, name: 'Read', input });
const result = (id: string, content?: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'tool_result',
  tool_use_id: id,
  ...(content === undefined ? {} : { content }),
  ...extra,
});
const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const } }];
const body = (messages: Msg[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, tools, messages });
const run = (messages: Msg[]) => prepare(body(messages) as never, { conversationId: 'c', store: new MemoryConversationStore() });

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };
const imageUrl = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
const imageFile = { type: 'image', source: { type: 'file', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' } };
const docText = {
  type: 'document',
  source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' },
  title: 'Grass',
  citations: { enabled: true },
};
const docContent = { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'The sky is blue.' }] }, context: 'weather' };
const docContentString = { type: 'document', source: { type: 'content', content: 'The sky is blue.' } };
const docUrl = { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } };
const docPdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } };
const docFile = { type: 'document', source: { type: 'file', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' } };
const searchResult = {
  type: 'search_result',
  source: 'https://example.com/kb/1',
  title: 'Knowledge base 1',
  content: [{ type: 'text', text: 'Refunds take 5 days.' }],
  citations: { enabled: true },
};
const citedText = {
  type: 'text',
  text: 'The grass is green.',
  citations: [
    { type: 'char_location', cited_text: 'The grass is green.', document_index: 0, document_title: 'Grass', start_char_index: 0, end_char_index: 19 },
  ],
};
const srvUse = { type: 'server_tool_use', id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', name: 'web_search', input: { query: 'weather' } };
const srvResult = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
  content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Weather', encrypted_content: 'EqgfCioIARgB', page_age: 'April 30, 2025' }],
};
const thinking = { type: 'thinking', thinking: 'Read it first.', signature: 'EqQBCgIYAhIM' };
const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' };
const mcpUse = { type: 'mcp_tool_use', id: 'mcptoolu_014Q35RayjACSWkSj4X2yov1', name: 'echo', server_name: 'example', input: { text: 'hi' } };
const mcpResult = { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_014Q35RayjACSWkSj4X2yov1', is_error: false, content: [{ type: 'text', text: 'hi' }] };

/** [name, messages] pairs the API takes: each must go through prepare, and what goes out must pass the fake server. */
const VALID: [string, Msg[]][] = [
  ['a tool_use with empty input {}', [U('Go.'), A([use('toolu_1', {})]), U([result('toolu_1', 'ok')])]],
  ['a tool_result with is_error and string content', [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', 'ENOENT', { is_error: true })])]],
  [
    'a tool_result with is_error and array content',
    [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', [{ type: 'text', text: 'ENOENT' }], { is_error: true })])],
  ],
  ['a tool_result with is_error and no content', [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', undefined, { is_error: true })])]],
  ['a tool_result with empty string content', [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', '')])]],
  ['a tool_result with an empty content array', [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', [])])]],
  [
    'images (base64, url, file) inside a tool_result',
    [U('Shoot.'), A([use('toolu_1')]), U([result('toolu_1', [{ type: 'text', text: 'three' }, image, imageUrl, imageFile])])],
  ],
  [
    'documents (text, content, url, pdf, file) inside a tool_result',
    [U('Fetch.'), A([use('toolu_1')]), U([result('toolu_1', [docText, docContent, docUrl, docPdf, docFile])])],
  ],
  ['search_result blocks inside a tool_result', [U('Search.'), A([use('toolu_1')]), U([result('toolu_1', [searchResult])])]],
  ['search_result blocks at the top of a user message', [U([searchResult, { type: 'text', text: 'When is my refund?' }])]],
  ['documents at the top of a user message', [U([docText, docContent, docContentString, docUrl, docPdf, docFile, { type: 'text', text: 'Summarise.' }])]],
  ['images at the top of a user message', [U([image, imageUrl, imageFile, { type: 'text', text: 'What is this?' }])]],
  ['text with citations in an assistant message', [U([docText, { type: 'text', text: 'Colour?' }]), A([citedText]), U('Thanks.')]],
  [
    'server tool blocks (web search) in an assistant message',
    [U('Weather?'), A([{ type: 'text', text: 'Searching.' }, srvUse, srvResult, { type: 'text', text: 'Sunny.' }]), U('Thanks.')],
  ],
  [
    'server tool blocks and a client tool_use in one response',
    [U('Weather, then read a.ts.'), A([srvUse, srvResult, use('toolu_1')]), U([result('toolu_1', 'file a')])],
  ],
  ['redacted_thinking and thinking before a tool_use', [U('Go.'), A([thinking, redacted, use('toolu_1')]), U([result('toolu_1', 'ok')])]],
  ['mcp_tool_use and mcp_tool_result in an assistant message', [U('Echo hi.'), A([mcpUse, mcpResult, { type: 'text', text: 'hi' }]), U('Thanks.')]],
  [
    'a container_upload block in a user message',
    [
      U([
        { type: 'container_upload', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' },
        { type: 'text', text: 'Analyse it.' },
      ]),
    ],
  ],
  ['an assistant prefill as the last message', [U('Answer in JSON.'), A([{ type: 'text', text: '{' }])]],
  ['an assistant prefill (string) after a full round', [U('Go.'), A([use('toolu_1')]), U([result('toolu_1', 'ok')]), A('{')]],
  ['tool results split over consecutive user messages', [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')]), U([result('toolu_2')])]],
  [
    'tool results split over consecutive user messages, text after the last',
    [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')]), U([result('toolu_2'), { type: 'text', text: 'Go on.' }])],
  ],
  [
    'a tool_use called from code execution (programmatic tool calling: a caller naming the server_tool_use)',
    [
      U('Sum the files.'),
      A([
        { type: 'server_tool_use', id: 'srvtoolu_01A', name: 'code_execution', input: { code: 'read()' } },
        { ...use('toolu_1'), caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01A' } },
      ]),
      U([result('toolu_1')]),
    ],
  ],
  [
    'a thinking block with empty text and its signature (thinking display omitted)',
    [U('Go.'), A([{ ...thinking, thinking: '' }, use('toolu_1')]), U([result('toolu_1', 'ok')])],
  ],
  [
    'a tool_reference inside a tool_result (tool search)',
    [U('Find a tool.'), A([use('toolu_1')]), U([result('toolu_1', [{ type: 'tool_reference', tool_name: 'Read' }])])],
  ],
  [
    'tool_use ids of other providers that fit the pattern',
    [U('Go.'), A([use('call_Ab-9xYz'), use('toolu_vrtx_01AbC'), use('-0')]), U([result('call_Ab-9xYz'), result('toolu_vrtx_01AbC'), result('-0')])],
  ],
];

describe('prepare takes valid shapes the generators do not produce', () => {
  it.each(VALID)('%s', async (_name, messages) => {
    expect(validateRequest(body(messages))).toBeNull(); // the oracle takes the raw request
    const { params } = await run(messages);
    expect(validateRequest(params)).toBeNull();
  });
});

const session = () => new Session({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools, request: { max_tokens: 100 } });
const response = (content: unknown[], stop = 'tool_use') => ({ content, stop_reason: stop }) as unknown as Message;
const asResults = (r: unknown[]) => r as ToolResultBlockParam[];
const asBlocks = (b: unknown[]) => b as ContentBlockParam[];

describe('Session takes the same valid shapes', () => {
  it('a response with thinking, redacted thinking, server and MCP tool blocks, cited text and a tool_use with {} input; results of every form', async () => {
    const s = session()
      .startTurn(asBlocks([docText, image, searchResult, { type: 'text', text: 'Go.' }]))
      .recordResponse(
        response([
          thinking,
          redacted,
          citedText,
          srvUse,
          srvResult,
          mcpUse,
          mcpResult,
          use('toolu_1', {}),
          use('toolu_2'),
          use('toolu_3'),
          use('toolu_4'),
          use('toolu_5'),
        ]),
      )
      .recordToolResults(
        asResults([
          result('toolu_1', 'ENOENT', { is_error: true }),
          result('toolu_2', undefined, { is_error: true }),
          result('toolu_3', []),
          result('toolu_4', [image, imageUrl, docContent, docPdf, searchResult]),
          result('toolu_5', ''),
        ]),
      );
    expect(validateRequest(await s.request())).toBeNull();
  });

  it('results recorded in two calls, then the request', async () => {
    const s = session()
      .startTurn('Read both.')
      .recordResponse(response([use('toolu_1'), use('toolu_2')]))
      .recordToolResults(asResults([result('toolu_1', 'a')]))
      .recordToolResults(asResults([result('toolu_2', 'b')]));
    expect(validateRequest(await s.request())).toBeNull();
  });

  it('a server-tool-only response ends the turn; the next turn and a tail of images and documents go through', async () => {
    const s = session()
      .startTurn('Weather?')
      .recordResponse(response([srvUse, srvResult, { type: 'text', text: 'Sunny.' }], 'end_turn'))
      .startTurn(
        asBlocks([
          { type: 'container_upload', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' },
          { type: 'text', text: 'And this?' },
        ]),
      )
      .setTail(asBlocks([imageUrl, docUrl, { type: 'text', text: 'now: 12:00' }]));
    expect(validateRequest(await s.request())).toBeNull();
  });
});

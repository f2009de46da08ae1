/**
 * Messages the API refuses, given to `prepare` by an existing loop: each is refused with an InvalidParamsError that
 * names the message and block (`messages[2].content[0]…`) and what is wrong, instead of going out for a 400. The fake
 * server is the independent oracle: it refuses the same raw messages by its own checks (never the library's). And the
 * valid neighbours of each case still go through, to the fake server's satisfaction.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { InvalidParamsError, TimelineError } from '../../src/errors.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

type Msg = { role: 'user' | 'assistant'; content: unknown };
const U = (content: unknown): Msg => ({ role: 'user', content });
const A = (content: unknown): Msg => ({ role: 'assistant', content });
const use = (id: string, extra: Record<string, unknown> = {}) => ({ type: 'tool_use', id, name: 'Read', input: { path: 'a.ts' }, ...extra });
const result = (id: string, content: unknown = 'file a') => ({ type: 'tool_result', tool_use_id: id, content });
const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' } }];
const body = (messages: Msg[], extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, tools, messages, ...extra });

const run = (messages: Msg[], extra: Record<string, unknown> = {}) =>
  prepare(body(messages, extra) as never, { conversationId: 'c', store: new MemoryConversationStore() });

async function refusal(messages: Msg[], extra: Record<string, unknown> = {}): Promise<InvalidParamsError> {
  const err = await run(messages, extra).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidParamsError);
  return err as InvalidParamsError;
}

describe('prepare refuses messages the API refuses, naming where', () => {
  it.each<[string, Msg[], string, RegExp]>([
    [
      'tool results that answer only some tool_use blocks',
      [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')])],
      'messages[2]',
      /tool_use toolu_2 of the previous assistant message has no tool_result/,
    ],
    [
      'a tool_result in the first message (no assistant tool_use before it to answer)',
      [U([{ type: 'text', text: 'Here is the result.' }, result('toolu_9')])],
      'messages[0].content[1]',
      /^messages\[0\]\.content\[1\]: tool_result "toolu_9" answers no tool_use: no assistant message with tool_use blocks comes before it/,
    ],
    [
      'a tool_use id of another provider (a dot and a colon)',
      [U('Run it.'), A([use('functions.bash:0')]), U([result('functions.bash:0')])],
      'messages[1].content[0].id',
      /"functions\.bash:0": the API takes only letters, digits, _ and - in a tool_use id/,
    ],
    [
      'a thinking block sent back without its signature',
      [U('Read a.ts.'), A([{ type: 'thinking', thinking: 'The file first.' }, use('toolu_1')]), U([result('toolu_1')])],
      'messages[1].content[0].signature',
      /expected a string: send a thinking block back with the signature/,
    ],
    [
      'a thinking block without its text',
      [U('Read a.ts.'), A([{ type: 'thinking', signature: 'sig' }, use('toolu_1')]), U([result('toolu_1')])],
      'messages[1].content[0].thinking',
      /expected a string/,
    ],
    [
      'a redacted_thinking block without its data',
      [U('Read a.ts.'), A([{ type: 'redacted_thinking' }, use('toolu_1')]), U([result('toolu_1')])],
      'messages[1].content[0].data',
      /expected a string/,
    ],
    [
      'an image without a source',
      [U([{ type: 'text', text: 'What is this?' }, { type: 'image' }])],
      'messages[0].content[1].source',
      /an image block needs a source object/,
    ],
    [
      'an image whose base64 source has no data',
      [
        U([
          { type: 'image', source: { type: 'base64', media_type: 'image/png' } },
          { type: 'text', text: 'What is this?' },
        ]),
      ],
      'messages[0].content[0].source.data',
      /expected a string \(a base64 source needs it\)/,
    ],
    [
      'a document whose source has no type',
      [
        U([
          { type: 'document', source: { url: 'https://example.com/a.pdf' } },
          { type: 'text', text: 'Sum up.' },
        ]),
      ],
      'messages[0].content[0].source.type',
      /expected a string/,
    ],
    [
      'an image without a source inside a tool_result',
      [U('Take a screenshot.'), A([use('toolu_1')]), U([result('toolu_1', [{ type: 'image', source: { type: 'url' } }])])],
      'messages[2].content[0].content[0].source.url',
      /expected a string/,
    ],
    [
      "a screenshot labelled 'image/jpg' inside a tool_result",
      [
        U('Take a screenshot.'),
        A([use('toolu_1')]),
        U([result('toolu_1', [{ type: 'image', source: { type: 'base64', media_type: 'image/jpg', data: '/9j/4AAQ' } }])]),
      ],
      'messages[2].content[0].content[0].source.media_type',
      /"image\/jpg": the API takes 'image\/jpeg', 'image\/png', 'image\/gif', 'image\/webp' \(JPEG's type is 'image\/jpeg'\)/,
    ],
    [
      'a search_result without a title, inside a tool_result',
      [
        U('Search the docs.'),
        A([use('toolu_1')]),
        U([result('toolu_1', [{ type: 'search_result', source: 'https://example.com/a', content: [{ type: 'text', text: 'a hit' }] }])]),
      ],
      'messages[2].content[0].content[0].title',
      /expected a string \(a search_result needs it\)/,
    ],
    [
      "an OpenAI chat part ('image_url')",
      [
        U([
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ]),
      ],
      'messages[0].content[1]',
      /"image_url" is not a Messages API content block; .*type: 'image', source: \{ type: 'url', url \}/,
    ],
    [
      "an AI SDK part ('tool-call') in an assistant message",
      [U('Read a.ts.'), A([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'Read', input: {} }]), U('go on')],
      'messages[1].content[0]',
      /"tool-call" is not a Messages API content block; .*tool_use/,
    ],
  ])('%s', async (_, messages, where, what) => {
    // The oracle first: the fake server refuses these messages as they are.
    expect(validateRequest(body(messages))).not.toBeNull();
    const err = await refusal(messages);
    expect(err.where).toBe(where);
    expect(err.message).toMatch(what);
  });
});

describe('the tail', () => {
  it('a tail block the API refuses is refused before anything is saved, naming tail/i and the field', async () => {
    const store = new MemoryConversationStore();
    const tail = [
      { type: 'text', text: 'Screen now:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png' } },
    ];
    const err = await prepare(body([U('What changed on the screen?')]) as never, { conversationId: 'c', store, tail: tail as never }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimelineError);
    expect((err as Error).message).toBe('tail/1: source.data: expected a string (a base64 source needs it)');
    expect(store.loadSync('c')).toBeUndefined();
  });
});

describe('and lets their valid neighbours through', () => {
  it.each<[string, Msg[]]>([
    [
      'tool results split over two user messages (the API merges consecutive user messages)',
      [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_1')]), U([result('toolu_2')])],
    ],
    [
      'tool_use ids of other providers that the API takes',
      [U('Read both.'), A([use('call_Ab-9'), use('tooluse_x1')]), U([result('call_Ab-9'), result('tooluse_x1')])],
    ],
    ['every tool_use answered', [U('Read both.'), A([use('toolu_1'), use('toolu_2')]), U([result('toolu_2'), result('toolu_1')])]],
    [
      'thinking and redacted_thinking sent back whole',
      [
        U('Read a.ts.'),
        A([{ type: 'thinking', thinking: 'The file first.', signature: 'sig' }, { type: 'redacted_thinking', data: 'opaque' }, use('toolu_1')]),
        U([result('toolu_1')]),
      ],
    ],
    [
      'images and documents of every source type',
      [
        U([
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          { type: 'image', source: { type: 'file', file_id: 'file_01' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } },
          { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'a chunk' }] } },
          { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, title: 'A' },
          { type: 'text', text: 'Compare them.' },
        ]),
      ],
    ],
    [
      'search results inside a tool_result',
      [
        U('Search the docs.'),
        A([use('toolu_1')]),
        U([result('toolu_1', [{ type: 'search_result', source: 'https://example.com/a', title: 'A', content: [{ type: 'text', text: 'a hit' }] }])]),
      ],
    ],
    [
      'an image inside a tool_result',
      [U('Take a screenshot.'), A([use('toolu_1')]), U([result('toolu_1', [{ type: 'image', source: { type: 'url', url: 'https://example.com/s.png' } }])])],
    ],
    [
      'server tool blocks the API returned, sent back',
      [
        U('Search the web.'),
        A([
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'cachepoint' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'Nothing found.' },
        ]),
        U('Thanks.'),
      ],
    ],
  ])('%s', async (_, messages) => {
    expect(validateRequest(body(messages))).toBeNull();
    const { params } = await run(messages);
    expect(validateRequest(params)).toBeNull();
  });
});

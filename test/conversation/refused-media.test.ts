/**
 * Documents and images the Messages API refuses, given to `prepare` (and a Session) by an existing loop: a base64
 * document that is not a PDF (the API takes base64 documents as 'application/pdf' only), a text document whose media
 * type is not 'text/plain', a base64 image over 5 MB. Each is an InvalidParamsError naming `messages[i].content[j]…`
 * and what the API takes, instead of the API's 400; the fake server (the oracle) refuses the same raw messages by its
 * own checks. The kinds the API takes go out byte for byte as the caller gave them, and Bedrock's Converse door
 * (prepareConverse), whose API takes csv, doc, docx, xls, xlsx, html, txt and md, is not held to these rules but to
 * Bedrock's own (a document name's characters, 4.5 MB a document, 3.75 MB an image).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@aws-sdk/client-bedrock-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recallFromConversation } from '../../src/conversation/prepare.js';
import { prepareConverse } from '../../src/conversation/prepare-converse.js';
import { InvalidParamsError, ProviderMappingError, TimelineError } from '../../src/errors.js';
import { bedrockProfile, toBedrockConverse } from '../../src/providers/bedrock.js';
import { render } from '../../src/render/render.js';
import { createTimeline, startTurn } from '../../src/timeline/edit.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

type Msg = { role: 'user' | 'assistant'; content: unknown };
const U = (content: unknown): Msg => ({ role: 'user', content });
const A = (content: unknown): Msg => ({ role: 'assistant', content });
const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { path: 'a.docx' } });
const result = (id: string, content: unknown) => ({ type: 'tool_result', tool_use_id: id, content });
const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const } }];
const MODEL = 'claude-sonnet-4-5';
const body = (messages: Msg[]) => ({ model: MODEL, max_tokens: 100, tools, messages });
const run = (messages: Msg[], tail?: unknown) =>
  prepare(body(messages) as never, { conversationId: 'c', store: new MemoryConversationStore(), ...(tail ? { tail: tail as never } : {}) });

const b64 = (text: string) => Buffer.from(text).toString('base64');
const CSV = b64('region,total\nnorth,12\nsouth,30\n');
/** A zip's local-file signature: what a docx or xlsx starts with. */
const DOCX = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]).toString('base64');
const PDF = b64('%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n');
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** The API's maximum for one image (its 400: "image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes"). */
const IMAGE_MAX = 5 * 1024 * 1024;
/** Base64 of `n` bytes (a PNG signature, then zeros): its decoded size is exactly `n`. */
const imageOf = (n: number) => {
  const bytes = Buffer.alloc(n);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes.toString('base64');
};
const BIG_IMAGE = imageOf(IMAGE_MAX + 1);
/** The header of a PNG of `w`×`h` px (signature and IHDR: all the size check reads), as base64. */
const pngOf = (w: number, h: number) => {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b.toString('base64');
};
/** A JPEG's start: SOI, an APP0 segment, then a baseline frame header of `w`×`h` px. */
const jpegOf = (w: number, h: number) => {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 8, h >> 8, h & 0xff, w >> 8, w & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]).toString('base64');
};
/** GIF and WebP (VP8X) headers of `w`×`h` px. */
const gifOf = (w: number, h: number) => {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(w, 6);
  b.writeUInt16LE(h, 8);
  return b.toString('base64');
};
const webpOf = (w: number, h: number) => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(w - 1, 24, 3);
  b.writeUIntLE(h - 1, 27, 3);
  return b.toString('base64');
};
/** WebP lossless (VP8L) and lossy (VP8) headers of `w`×`h` px. */
const webpLosslessOf = (w: number, h: number) => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBPVP8L', 8, 'latin1');
  b[20] = 0x2f;
  b.writeUInt32LE(((w - 1) | ((h - 1) << 14)) >>> 0, 21);
  return b.toString('base64');
};
const webpLossyOf = (w: number, h: number) => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBPVP8 ', 8, 'latin1');
  Buffer.from([0x9d, 0x01, 0x2a]).copy(b, 23);
  b.writeUInt16LE(w, 26);
  b.writeUInt16LE(h, 28);
  return b.toString('base64');
};
const typed = (media_type: string, data: string) => ({ type: 'image', source: { type: 'base64', media_type, data } });
const doc = (source: object, extra: object = {}) => ({ type: 'document', source, ...extra });
const img = (data: string) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });

/** What `p` rejects with (a value it resolves to fails the check). */
async function refusal(p: Promise<unknown>): Promise<Error> {
  const err: unknown = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}

describe('prepare refuses documents and images the Messages API refuses, naming where and what it takes', () => {
  it.each<[string, Msg[], string, RegExp]>([
    [
      'a CSV sent as a base64 document',
      [U([doc({ type: 'base64', media_type: 'text/csv', data: CSV }), { type: 'text', text: 'Sum the totals.' }])],
      'messages[0].content[0].source.media_type',
      /^messages\[0\]\.content\[0\]\.source\.media_type: "text\/csv": the Messages API takes a base64 document only as 'application\/pdf'.*\{ type: 'text', media_type: 'text\/plain', data \}/,
    ],
    [
      'a docx a tool read, as a base64 document inside its tool_result',
      [U('Read the spec.'), A([use('toolu_1')]), U([result('toolu_1', [doc({ type: 'base64', media_type: DOCX_TYPE, data: DOCX })])])],
      'messages[2].content[0].content[0].source.media_type',
      /the Messages API takes a base64 document only as 'application\/pdf'.*convert an Office file to PDF or to text/,
    ],
    [
      "a PDF labelled 'Application/PDF'",
      [U([doc({ type: 'base64', media_type: 'Application/PDF', data: PDF }), { type: 'text', text: 'Sum up.' }])],
      'messages[0].content[0].source.media_type',
      /"Application\/PDF": .*\(lower case: 'application\/pdf'\)/,
    ],
    [
      'a text document labelled text/csv',
      [U([doc({ type: 'text', media_type: 'text/csv', data: 'region,total\nnorth,12' }), { type: 'text', text: 'Sum it.' }])],
      'messages[0].content[0].source.media_type',
      /"text\/csv": the Messages API takes a text document only as 'text\/plain'/,
    ],
    [
      'a base64 image one byte over 5 MB',
      [U([img(BIG_IMAGE), { type: 'text', text: 'What is this?' }])],
      'messages[0].content[0].source.data',
      /an image of 5,242,881 bytes: the API takes at most 5 MB \(5,242,880 bytes\) per image/,
    ],
    [
      'a full-page screenshot 12,000 px tall (PNG)',
      [U([img(pngOf(1280, 12_000)), { type: 'text', text: 'Review the page.' }])],
      'messages[0].content[0].source.data',
      /an image of 1280×12000 px: the API takes at most 8000 px a side/,
    ],
    [
      'a JPEG 8,001 px wide inside a tool_result',
      [U('Take a photo.'), A([use('toolu_1')]), U([result('toolu_1', [typed('image/jpeg', jpegOf(8001, 600))])])],
      'messages[2].content[0].content[0].source.data',
      /an image of 8001×600 px/,
    ],
    [
      'a screenshot over 5 MB inside a tool_result',
      [U('Take a screenshot.'), A([use('toolu_1')]), U([result('toolu_1', [img(BIG_IMAGE)])])],
      'messages[2].content[0].content[0].source.data',
      /5 MB/,
    ],
  ])('%s', async (_, messages, where, what) => {
    // The oracle first: the fake server refuses these messages as they are.
    expect(validateRequest(body(messages))).not.toBeNull();
    const err = (await refusal(run(messages))) as InvalidParamsError;
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect(err.where).toBe(where);
    expect(err.message).toMatch(what);
  });

  it.each<[string, string, string, string]>([
    ['a GIF 9,000 px wide', 'image/gif', gifOf(9000, 10), '9000×10'],
    ['a lossless WebP 8,500 px wide', 'image/webp', webpLosslessOf(8500, 20), '8500×20'],
    ['a lossy WebP 16,000 px tall', 'image/webp', webpLossyOf(30, 16_000), '30×16000'],
    ['a WebP 8,192 px tall', 'image/webp', webpOf(100, 8192), '100×8192'],
  ])('%s', async (_, mediaType, data, size) => {
    const messages = [U([typed(mediaType, data), { type: 'text', text: 'What is it?' }])];
    expect(validateRequest(body(messages))).not.toBeNull();
    const err = (await refusal(run(messages))) as InvalidParamsError;
    expect(err.where).toBe('messages[0].content[0].source.data');
    expect(err.message).toContain(`an image of ${size} px: the API takes at most 8000 px a side`);
  });

  it('a refused document in the tail is refused before anything is saved, naming tail/i', async () => {
    const store = new MemoryConversationStore();
    const tail = [doc({ type: 'base64', media_type: 'text/csv', data: CSV })];
    const err = await refusal(prepare(body([U('What changed?')]) as never, { conversationId: 'c', store, tail: tail as never }));
    expect(err).toBeInstanceOf(TimelineError);
    expect(err.message).toMatch(/^tail\/0: source\.media_type: "text\/csv": the Messages API takes a base64 document only as 'application\/pdf'/);
    expect(store.loadSync('c')).toBeUndefined();
  });

  it('a Session refuses the same blocks at the edit, naming the path', () => {
    const session = new Session({ model: MODEL, instructions: ['You are careful.'], tools, request: { max_tokens: 100 } });
    expect(() => session.startTurn([doc({ type: 'base64', media_type: 'text/csv', data: CSV }), { type: 'text', text: 'Sum it.' }] as never)).toThrow(
      /^turns\/1\/user\/0: source\.media_type: "text\/csv": the Messages API takes a base64 document only as 'application\/pdf'/,
    );
    session.startTurn('Take a screenshot.');
    expect(() => session.setTail([img(BIG_IMAGE)] as never)).toThrow(/^tail\/0: source\.data: an image of 5,242,881 bytes/);
  });
});

describe('and sends the kinds the API takes byte for byte', () => {
  const kinds: [string, object][] = [
    ['a base64 PDF', doc({ type: 'base64', media_type: 'application/pdf', data: PDF }, { title: 'Report', citations: { enabled: true } })],
    ['a plain-text document', doc({ type: 'text', media_type: 'text/plain', data: 'region,total\nnorth,12' }, { context: 'sales' })],
    ['a url document (its bytes are the API’s to read)', doc({ type: 'url', url: 'https://example.com/a.docx' })],
    ['a file document (its type is the Files API’s to check)', doc({ type: 'file', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' })],
    ['a content document', doc({ type: 'content', content: [{ type: 'text', text: 'a chunk' }] })],
    ['a base64 image of exactly 5 MB', img(imageOf(IMAGE_MAX))],
    ['a PNG of 8000×8000 px', img(pngOf(8000, 8000))],
    ['a JPEG of 8000×4500 px', typed('image/jpeg', jpegOf(8000, 4500))],
    ['a GIF of 8000×1 px', typed('image/gif', gifOf(8000, 1))],
    ['a WebP of 8000×8000 px', typed('image/webp', webpOf(8000, 8000))],
    ['a lossless WebP of 8000×7999 px', typed('image/webp', webpLosslessOf(8000, 7999))],
    ['a lossy WebP of 7999×8000 px', typed('image/webp', webpLossyOf(7999, 8000))],
  ];
  it.each(kinds)('%s', async (_, block) => {
    const messages = [U([block, { type: 'text', text: 'Sum it up.' }]), A([use('toolu_1')]), U([result('toolu_1', [block])])];
    expect(validateRequest(body(messages))).toBeNull();
    const { params } = (await run(messages)) as unknown as { params: { messages: { content: unknown }[] } };
    expect(validateRequest(params)).toBeNull();
    const strip = (b: unknown) => JSON.parse(JSON.stringify(b, (k, v) => (k === 'cache_control' ? undefined : v)));
    expect(strip(params.messages[0]!.content)).toEqual(messages[0]!.content);
    expect(JSON.stringify(strip(params.messages[2]!.content))).toBe(JSON.stringify(messages[2]!.content));
  });
});

describe('a loop on the real SDK against the fake API', () => {
  let server: FakeMessagesServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a docx is refused before it is sent (the API would answer 400); the same loop with the PDF goes through', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'Done.' }]] });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const docx: Anthropic.MessageParam = {
      role: 'user',
      content: [{ type: 'document', source: { type: 'base64', media_type: DOCX_TYPE, data: DOCX } } as never, { type: 'text', text: 'Sum it up.' }],
    };
    // The oracle: sent as it is, the fake API answers 400 naming the field, as the API does.
    const raw = await refusal(client.messages.create({ model: MODEL, max_tokens: 100, messages: [docx] }));
    expect(raw).toBeInstanceOf(Anthropic.BadRequestError);
    expect(raw.message).toMatch(/messages\.0\.content\.0\.document\.source\.base64\.media_type: Input should be 'application\/pdf'/);
    const sent = server.requests.length;

    const err = (await refusal(prepare({ model: MODEL, max_tokens: 100, messages: [docx] }, { conversationId: 'd', store }))) as InvalidParamsError;
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect(err.where).toBe('messages[0].content[0].source.media_type');
    expect(server.requests.length).toBe(sent); // nothing went out
    expect(store.loadSync('d')).toBeUndefined();

    const pdf: Anthropic.MessageParam = {
      role: 'user',
      content: [
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
        { type: 'text', text: 'Sum it up.' },
      ],
    };
    const { params } = await prepare({ model: MODEL, max_tokens: 100, messages: [pdf] }, { conversationId: 'd', store });
    const message = await client.messages.create(params);
    expect(message.content).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(server.requests.at(-1)!.status).toBe(200);
  });
});

describe('prepareConverse: Bedrock’s own rules, not the Messages API’s', () => {
  const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const bytes = (s: string | Buffer) => new Uint8Array(typeof s === 'string' ? Buffer.from(s) : s);
  const converse = (content: object[]) =>
    prepareConverse(
      { modelId: ID, messages: [{ role: 'user', content: [...content, { text: 'Sum it up.' }] }] as Message[], inferenceConfig: { maxTokens: 100 } },
      { conversationId: 'b', store: new MemoryConversationStore() },
    );

  it('takes csv and docx bytes and csv text (formats Converse reads), sent back as they came', async () => {
    const { input } = await converse([
      { document: { format: 'csv', name: 'sales', source: { bytes: bytes('region,total\nnorth,12') } } },
      { document: { format: 'docx', name: 'spec (v2)', source: { bytes: bytes(Buffer.from(DOCX, 'base64')) } } },
      { document: { format: 'md', name: 'notes', source: { text: '# Notes' } } },
    ]);
    const out = input.messages![0]!.content!.filter((c) => 'document' in c).map((c) => (c as { document: { format: string; name: string } }).document);
    expect(out.map((d) => [d.format, d.name])).toEqual([
      ['csv', 'sales'],
      ['docx', 'spec (v2)'],
      ['md', 'notes'],
    ]);
  });

  const converseMessages = (messages: object[]) =>
    prepareConverse(
      { modelId: ID, messages: messages as Message[], inferenceConfig: { maxTokens: 100 } },
      { conversationId: 'b', store: new MemoryConversationStore() },
    );
  const csvDoc = (name: string) => ({ document: { format: 'csv', name, source: { bytes: bytes('a,b') } } });
  const png = { image: { format: 'png', source: { bytes: bytes('png') } } };

  it.each<[string, object[], string, RegExp]>([
    [
      'a sixth document in one message',
      [{ role: 'user', content: [...['a', 'b', 'c', 'd', 'e', 'f'].map(csvDoc), { text: 'Compare them.' }] }],
      'messages[0].content[5]',
      /a sixth document in one message: Bedrock takes at most five documents per message/,
    ],
    [
      'a 21st image in one message',
      [{ role: 'user', content: [...Array.from({ length: 21 }, () => png), { text: 'Which differ?' }] }],
      'messages[0].content[20]',
      /a 21st image in one message: Bedrock takes at most 20 images per message/,
    ],
    [
      'a document with no text block beside it',
      [{ role: 'user', content: [csvDoc('sales')] }],
      'messages[0].content',
      /a message with a document must also hold a text block \(Bedrock's rule\): add the question as \{ text \}/,
    ],
    [
      'an image in an assistant message',
      [
        { role: 'user', content: [{ text: 'Draw it.' }] },
        { role: 'assistant', content: [png] },
        { role: 'user', content: [{ text: 'Thanks.' }] },
      ],
      'messages[1].content[0]',
      /Bedrock takes images and documents in user messages only/,
    ],
  ])('refuses %s (Bedrock’s rules on a message), naming where', async (_, messages, where, what) => {
    const err = (await refusal(converseMessages(messages))) as InvalidParamsError;
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect(err.where).toBe(where);
    expect(err.message).toMatch(what);
  });

  it('takes five documents and 20 images in one message, a document in a tool result without text beside it', async () => {
    await converseMessages([{ role: 'user', content: [...['a', 'b', 'c', 'd', 'e'].map(csvDoc), ...Array.from({ length: 20 }, () => png), { text: 'Go.' }] }]);
    await converseMessages([
      { role: 'user', content: [{ text: 'Read it.' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [csvDoc('sales')] } }] },
    ]);
  });

  it.each<[string, object, string, RegExp]>([
    [
      'a document name with a dot (Bedrock takes letters, digits, single spaces, hyphens, parentheses, square brackets)',
      { document: { format: 'csv', name: 'sales.csv', source: { bytes: bytes('a,b') } } },
      'messages[0].content[0].document.name',
      /"sales\.csv": Bedrock takes a document name of 1 to 200 characters: letters, digits, single spaces, hyphens, parentheses and square brackets/,
    ],
    [
      'a document over 4.5 MB',
      { document: { format: 'txt', name: 'log', source: { bytes: new Uint8Array(4.5 * 1024 * 1024 + 1) } } },
      'messages[0].content[0].document.source.bytes',
      /a document of 4,718,593 bytes: Bedrock takes at most 4\.5 MB \(4,718,592 bytes\) per document/,
    ],
    [
      'an image 8,001 px tall',
      { image: { format: 'png', source: { bytes: new Uint8Array(Buffer.from(pngOf(640, 8001), 'base64')) } } },
      'messages[0].content[0].image.source.bytes',
      /an image of 640×8001 px: Bedrock takes at most 8000 px a side/,
    ],
    [
      'an image over 3.75 MB',
      { image: { format: 'png', source: { bytes: new Uint8Array(3.75 * 1024 * 1024 + 1) } } },
      'messages[0].content[0].image.source.bytes',
      /an image of 3,932,161 bytes: Bedrock takes at most 3\.75 MB \(3,932,160 bytes\) per image/,
    ],
  ])('refuses %s, naming where', async (_, block, where, what) => {
    const err = (await refusal(converse([block]))) as InvalidParamsError;
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect(err.where).toBe(where);
    expect(err.message).toMatch(what);
  });
});

describe('toBedrockConverse: a document title Bedrock refuses as a name', () => {
  const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const rendered = (title: string) =>
    render(
      startTurn(createTimeline({ model: ID, instructions: ['You are careful.'], tools: [] }), [
        doc({ type: 'base64', media_type: 'application/pdf', data: PDF }, { title }),
        { type: 'text', text: 'Sum it up.' },
      ] as never),
      { profile: bedrockProfile(ID) },
    );

  it('is a ProviderMappingError naming the block, not a request Bedrock answers with a ValidationException', () => {
    expect(() => toBedrockConverse(rendered('report.pdf'))).toThrow(ProviderMappingError);
    expect(() => toBedrockConverse(rendered('report.pdf'))).toThrow(/turns\/1\/user\/0: the title "report\.pdf" is the Converse document's name/);
    const ok = toBedrockConverse(rendered('Report (Q3) [final]'));
    expect(JSON.stringify(ok.messages)).toContain('"name":"Report (Q3) [final]"');
  });
});

describe('what the passes make of an accepted document', () => {
  it('a hidden PDF becomes a text note the API takes, and recall gives back the block that was sent', async () => {
    const store = new MemoryConversationStore();
    const pdf = doc({ type: 'base64', media_type: 'application/pdf', data: PDF }, { title: 'Spec' });
    const messages = [U('Read the spec.'), A([use('toolu_1')]), U([result('toolu_1', [pdf])])];
    const { params, plan } = (await prepare(body(messages) as never, { conversationId: 'h', store, hide: [{ toolUseId: 'toolu_1' }] })) as unknown as {
      params: object;
      plan: { hides: { path: string; decision: { kind: string } }[] };
    };
    expect(plan.hides).toHaveLength(1);
    expect(validateRequest(params)).toBeNull();
    expect(JSON.stringify(params)).not.toContain(PDF); // hidden behind its note
    const back = await recallFromConversation(plan.hides[0]!.path, { conversationId: 'h', store });
    expect(JSON.stringify(back)).toContain(JSON.stringify(pdf).slice(1, -1));
  });
});

/**
 * The Messages API's rules on one content block that `prepare`'s mapping does not need for itself: fields the API
 * requires (a thinking block's signature, an image's source) and other providers' part types sent by mistake. Each
 * rule is one the API states or answers with a 400; where the documentation is silent, the block goes through (a
 * block type cachepoint does not know may be one the API added since: it is passed on as it is).
 *
 * Sources:
 * - the request types of `@anthropic-ai/sdk` 1.14 (generated from the API's specification; read 2026-12-01):
 *   `ThinkingBlockParam { thinking: string; signature: string }`, `RedactedThinkingBlockParam { data: string }`,
 *   `SearchResultBlockParam { source: string; title: string; content: TextBlockParam[] }`,
 *   `ImageBlockParam { source: Base64ImageSource | URLImageSource | FileImageSource }`,
 *   `DocumentBlockParam { source: Base64PDFSource | PlainTextSource | ContentBlockSource | URLPDFSource | FileDocumentSource }`;
 * - the API's answers: `messages.1.content.0.thinking.signature: Field required` (justlovemaki/AIClient2API#437,
 *   2026-04-03; lbjlaq/Antigravity-Manager#1790, 2026-02-10), `messages.N.content.M: Input tag 'compaction' found
 *   using 'type' does not match any of the expected tags: …` for a type it does not take (quoted in a gateway's
 *   tests, 2026), and an OpenAI `image_url` part refused by Anthropic (BerriAI/litellm#4738, 2024-07-16).
 *
 * The media rules (what a document's or image's bytes may be) are the Messages API's, and hold only where the request
 * goes to it (`api` 'anthropic', the default): Bedrock's Converse API takes csv, doc, docx, xls, xlsx, html, txt and md
 * documents, which `prepareConverse` keeps as document blocks of those media types (its own limits are checked where
 * it reads the Converse request). The facts, with their sources: docs/drop-in.md, "Documents and images".
 */

import { TimelineError } from '../errors.js';
import { base64Reader, decodedLength } from './base64.js';
import { oversizedImage } from './image-size.js';
import type { ProviderId } from '../models/caching.js';

/** What is wrong with a block: the field under it (`.source`, or '' for the block itself) and why. */
export type BlockIssue = readonly [field: string, message: string];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Part types of other APIs (OpenAI Chat Completions and Responses, the AI SDK's `ModelMessage`) that loops moving to
 * Anthropic send by mistake, with the Anthropic block to use. Only these are refused by type: none is, or looks like,
 * an Anthropic block type.
 */
const FOREIGN: Readonly<Record<string, string>> = {
  image_url: "an OpenAI chat part: send { type: 'image', source: { type: 'url', url } } (or a base64 source)",
  input_text: "an OpenAI Responses part: send { type: 'text', text }",
  output_text: "an OpenAI Responses part: send { type: 'text', text }",
  input_image: "an OpenAI Responses part: send { type: 'image', source: { type: 'url', url } } (or a base64 source)",
  input_file: "an OpenAI Responses part: send { type: 'document', source: … }",
  function_call: "an OpenAI Responses item: the model's call is { type: 'tool_use', id, name, input } in an assistant message",
  function_call_output: "an OpenAI Responses item: the answer is { type: 'tool_result', tool_use_id, content } in a user message",
  'tool-call': "an AI SDK part: send { type: 'tool_use', id, name, input } (or use cachepoint/ai-sdk's middleware)",
  'tool-result': "an AI SDK part: send { type: 'tool_result', tool_use_id, content } (or use cachepoint/ai-sdk's middleware)",
};

/**
 * The media types of a base64 image: "messages.36.content.2.image.source.base64.media_type: Input should be
 * 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'" (the API's answer in anthropics/claude-code#8184, 2025-09-25,
 * and inside a tool_result in #3073, 2025-07-06; `image/jpg` in BoundaryML/baml#1292, 2025-01-06).
 */
const IMAGE_MEDIA_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/**
 * The one media type of a base64 document and of a text document: SDK 1.16's `Base64PDFSource { media_type:
 * 'application/pdf' }` and `PlainTextSource { media_type: 'text/plain' }` (generated from the API's specification),
 * and the API's answer to a CSV sent as a base64 document: "messages.0.content.1.document.source.base64.media_type:
 * Input should be 'application/pdf'" (langchain-ai/langchain#37576, 2026-05-20; langchain-ai/langchainjs#11156,
 * 2026-07-06, for docx/xlsx). Other files go to the API as text (the Files API page: "For file types that are not
 * supported as document blocks (.csv, .txt, .md, .docx, .xlsx), convert the files to plain text").
 */
const DOCUMENT_MEDIA_TYPE: Readonly<Record<string, string>> = { base64: 'application/pdf', text: 'text/plain' };

/**
 * The most bytes one base64 image may decode to: the API's answer "messages.2.content.0.image.source.base64: image
 * exceeds 5 MB maximum: 8259148 bytes > 5242880 bytes" (anthropics/claude-code#19631, 2026-01-21; #10612,
 * 2025-10-30). Whether the API measures the decoded bytes or the base64 text is not documented: an image over this
 * many decoded bytes is refused either way, so only that is refused here.
 */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/** A tool_use id as the API takes it. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** The source shapes the API takes, by block type and source type: the fields each one requires. */
const SOURCES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  image: { base64: ['media_type', 'data'], url: ['url'], file: ['file_id'] },
  document: { base64: ['media_type', 'data'], text: ['media_type', 'data'], url: ['url'], file: ['file_id'], content: [] },
};

const SOURCE_HINT: Readonly<Record<string, string>> = {
  image: "{ type: 'base64', media_type, data }, { type: 'url', url } or { type: 'file', file_id }",
  document:
    "{ type: 'base64', media_type: 'application/pdf', data }, { type: 'text', media_type: 'text/plain', data }, { type: 'url', url }, { type: 'content', content } or { type: 'file', file_id }",
};

/**
 * The first rule a content block breaks, or undefined. Only the fields named above are looked at; a source type or a
 * block type not listed goes through (the API may take it).
 *
 * @example
 * contentBlockIssue({ type: 'thinking', thinking: '…' }); // ['.signature', 'expected a string: …']
 */
export function contentBlockIssue(block: Json, api: ProviderId = 'anthropic'): BlockIssue | undefined {
  const type = block.type as string;
  switch (type) {
    case 'tool_use':
      // The API's answer to an id of another provider or a restored session (`functions.bash:0`, `call|1`):
      // "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'" (CommandCodeAI/command-code#323,
      // 2026-05-06; BlockRunAI/ClawRouter#17, 2026-02-10, checked against the live API).
      return typeof block.id === 'string' && !TOOL_USE_ID.test(block.id)
        ? [
            '.id',
            `${JSON.stringify(block.id)}: the API takes only letters, digits, _ and - in a tool_use id; map it (and its tool_result's tool_use_id) to one`,
          ]
        : undefined;
    case 'thinking':
      if (typeof block.thinking !== 'string') return ['.thinking', 'expected a string (the thinking text of the response)'];
      return typeof block.signature === 'string'
        ? undefined
        : ['.signature', 'expected a string: send a thinking block back with the signature the response gave it (the API requires it), or leave the block out'];
    case 'redacted_thinking':
      return typeof block.data === 'string' ? undefined : ['.data', 'expected a string: send a redacted_thinking block back as the response gave it'];
    case 'image':
    case 'document':
      return sourceIssue(type, block.source, api === 'anthropic');
    case 'search_result':
      // SDK 1.14 `SearchResultBlockParam { source: string; title: string; content: TextBlockParam[] }` (a RAG tool's
      // results, most often inside a tool_result).
      for (const field of ['source', 'title'] as const)
        if (typeof block[field] !== 'string') return [`.${field}`, 'expected a string (a search_result needs it)'];
      if (!Array.isArray(block.content)) return ['.content', 'expected an array of text blocks'];
      for (let i = 0; i < block.content.length; i++) {
        const part = block.content[i] as Json | null;
        if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string') return [`.content[${i}]`, 'expected a text block'];
      }
      return undefined;
    default: {
      const foreign = FOREIGN[type];
      return foreign === undefined ? undefined : ['', `"${type}" is not a Messages API content block; ${foreign}`];
    }
  }
}

/** `media`: the Messages API's rules on the bytes too ({@link mediaIssue}). */
function sourceIssue(type: 'image' | 'document', source: unknown, media: boolean): BlockIssue | undefined {
  const hint = SOURCE_HINT[type]!;
  if (!isObject(source)) return ['.source', `${type === 'image' ? 'an image' : 'a document'} block needs a source object: ${hint}`];
  if (typeof source.type !== 'string') return ['.source.type', `expected a string: ${hint}`];
  const required = SOURCES[type]![source.type];
  if (required === undefined) return undefined;
  for (const field of required) if (typeof source[field] !== 'string') return [`.source.${field}`, `expected a string (a ${source.type} source needs it)`];
  if (type === 'image' && source.type === 'base64' && !IMAGE_MEDIA_TYPES.includes(source.media_type as string)) {
    const hint = source.media_type === 'image/jpg' ? " (JPEG's type is 'image/jpeg')" : '';
    return ['.source.media_type', `${JSON.stringify(source.media_type)}: the API takes ${IMAGE_MEDIA_TYPES.map((t) => `'${t}'`).join(', ')}${hint}`];
  }
  if (source.type === 'content' && typeof source.content !== 'string' && !Array.isArray(source.content)) {
    return ['.source.content', 'expected a string or an array of text and image blocks'];
  }
  return media ? mediaIssue(type, source) : undefined;
}

/** The Messages API's rules on a source's bytes: a document's media type, an image's size. */
function mediaIssue(type: 'image' | 'document', source: Json): BlockIssue | undefined {
  if (type === 'image') {
    const data = source.data as string | undefined;
    if (source.type !== 'base64' || data === undefined) return undefined;
    // The size is counted only for data long enough to be over (the count reads the text once more).
    const bytes = data.length > (IMAGE_MAX_BYTES * 4) / 3 ? decodedLength(data) : 0;
    if (bytes > IMAGE_MAX_BYTES) {
      return [
        '.source.data',
        `an image of ${bytes.toLocaleString('en-US')} bytes: the API takes at most 5 MB (${IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes) per image; resize or recompress it`,
      ];
    }
    const oversized = oversizedImage(base64Reader(data), 'the API');
    return oversized === undefined ? undefined : ['.source.data', oversized];
  }
  const only = DOCUMENT_MEDIA_TYPE[source.type as string];
  if (only === undefined || source.media_type === only) return undefined;
  const given = `${JSON.stringify(source.media_type)}: the Messages API takes a ${source.type} document only as '${only}'`;
  if ((source.media_type as string).toLowerCase() === only) return ['.source.media_type', `${given} (lower case: '${only}')`];
  return [
    '.source.media_type',
    source.type === 'base64'
      ? `${given}; send a text file as { type: 'text', media_type: 'text/plain', data } (its decoded text), convert an Office file to PDF or to text, or send the request to Bedrock's Converse API (prepareConverse), which reads csv, doc, docx, xls, xlsx, html, txt and md`
      : `${given} (whatever the text's format: csv, markdown, html)`,
  ];
}

/**
 * Blocks given to a Session (or a tail given to `prepare`) that break a rule above, and the content of tool results:
 * a TimelineError naming where (`turns/2/user/1`, `tail/0`) and the field, instead of a 400 at the next request.
 * Checked at the doors, not in the timeline's edits: replaying a trace (simulate, report) reads what was sent, and an
 * old log is analysed as it is.
 *
 * @throws {TimelineError} for the first block that breaks a rule
 */
export function refuseBlocks(blocks: unknown, where: string, api: ProviderId = 'anthropic'): void {
  if (!Array.isArray(blocks)) return; // a string, or what the edits refuse themselves (not an array)
  for (let i = 0; i < blocks.length; i++) {
    const b: unknown = blocks[i];
    if (b === null || typeof b !== 'object' || typeof (b as { type?: unknown }).type !== 'string') continue; // the edits' own error
    const issue = contentBlockIssue(b as Record<string, unknown>, api);
    if (issue) throw new TimelineError(`${where}/${i}`, issue[0] ? `${issue[0].slice(1)}: ${issue[1]}` : issue[1]);
    const parts = (b as { type: string; content?: unknown }).type === 'tool_result' ? (b as { content?: unknown }).content : undefined;
    if (Array.isArray(parts)) refuseBlocks(parts, `${where}/${i}/content`, api);
  }
}

/**
 * The first image or document of `blocks` (or of a tool_result's content among them) that is well formed but breaks
 * the Messages API's rules on its bytes, as `content[1].source.media_type: …`; undefined when none does or `api` is
 * not 'anthropic'. For what only analyses a log (replay, simulate): such a block is replayed as it was sent, and said.
 *
 * @example
 * refusedMedia([{ type: 'document', source: { type: 'base64', media_type: 'text/csv', data: 'YQ==' } }]);
 * // 'content[0].source.media_type: "text/csv": the Messages API takes a base64 document only as …'
 */
export function refusedMedia(blocks: unknown, api: ProviderId = 'anthropic'): string | undefined {
  if (api !== 'anthropic' || !Array.isArray(blocks)) return undefined;
  for (let i = 0; i < blocks.length; i++) {
    const b: unknown = blocks[i];
    if (!isObject(b)) continue;
    if (b.type === 'image' || b.type === 'document') {
      const issue = sourceIssue(b.type, b.source, false) === undefined ? sourceIssue(b.type, b.source, true) : undefined;
      if (issue) return `content[${i}]${issue[0]}: ${issue[1]}`;
    } else if (b.type === 'tool_result') {
      const inner = refusedMedia(b.content, api);
      if (inner) return `content[${i}].${inner}`;
    }
  }
  return undefined;
}

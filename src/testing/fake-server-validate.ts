/**
 * Request validation for the fake Messages API server: the checks the real
 * Anthropic API makes before a request reaches the model, answered with the
 * API's own wording where it is known (quoted from real 400 responses; see
 * shared/anthropic-prompt-cache.md §2.1 and the issue threads cited there).
 * Where the real wording is unknown the message names the exact location
 * (`messages.N.content.M`) and the rule. The cache-marker messages are the
 * simulator's (`REJECTION` in sim/prefix.ts), so both answer alike.
 *
 * Consecutive messages with the same role are accepted and checked as one
 * merged message, as the real API merges them; error locations still name the
 * original `messages.N` index.
 */

import { MAX_CACHE_POINTS, REJECTION } from '../sim/prefix.js';
import { isManualThinking, MANUAL_THINKING_REFUSED, manualLoopThinkingIssue, manualThinkingRefused } from '../internal/loop-thinking.js';
import { apiModelId, CONTEXT_1M_BETA, LONG_CONTEXT_BETA_MODELS, resolveProfile, type ModelProfile } from '../models/profiles.js';

// TYPES

/** The first problem found in a request: what the API would answer with a 400. */
export interface RequestIssue {
  /** The API's `error.message`. */
  readonly message: string;
}

/** Which endpoint the body was sent to (count_tokens does not need `max_tokens`). */
export type ValidatedEndpoint = 'messages' | 'count_tokens';

type Json = Record<string, unknown>;

/** One content block with the location it came from. */
interface Located {
  readonly block: Json;
  readonly path: string;
  readonly msg: number;
}

/** Consecutive same-role messages merged, as the API does. */
interface Turn {
  readonly role: 'user' | 'assistant';
  readonly first: number;
  readonly blocks: readonly Located[];
}

/** A cache marker in render order. */
interface Marker {
  readonly path: string;
  readonly ttl: '5m' | '1h';
}

// IMPLEMENTATION

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

class Invalid extends Error {}

function fail(message: string): never {
  throw new Invalid(message);
}

/**
 * Checks a Messages API request body the way the API does and returns the
 * first problem, or `null` when the request is valid.
 *
 * @example
 * validateRequest({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [] });
 * // { message: 'messages: at least one message is required' }
 */
export function validateRequest(body: unknown, endpoint: ValidatedEndpoint = 'messages'): RequestIssue | null {
  try {
    check(body, endpoint);
    return null;
  } catch (e) {
    if (e instanceof Invalid) return { message: e.message };
    throw e;
  }
}

function check(body: unknown, endpoint: ValidatedEndpoint): void {
  if (!isObject(body)) fail('request body must be a JSON object');
  if (body.model === undefined) fail('model: Field required');
  if (typeof body.model !== 'string' || body.model.length === 0) fail('model: Input should be a non-empty string');
  if (endpoint === 'messages') {
    if (body.max_tokens === undefined) fail('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
      fail('max_tokens: Input should be a valid integer');
    }
    if (body.max_tokens < 0) fail('max_tokens: Input should be greater than or equal to 0');
    if (body.max_tokens === 0 && body.stream === true) {
      fail('max_tokens: 0 (cache pre-warming) cannot be combined with stream: true');
    }
  }
  // Manual extended thinking on a model that takes only adaptive thinking (Claude 4.7 and later).
  if (isManualThinking(body.thinking) && manualThinkingRefused(apiModelId(body.model))) fail(MANUAL_THINKING_REFUSED);
  if (body.messages === undefined) fail('messages: Field required');
  if (!Array.isArray(body.messages)) fail('messages: Input should be a valid list');
  if (body.messages.length === 0) fail('messages: at least one message is required');

  checkTools(body.tools);
  checkSystem(body.system);
  const turns = checkMessages(body.messages);
  if (endpoint === 'messages') checkPrefill(body, turns);
  checkToolPairing(turns);
  // Manual extended thinking: the assistant message the request's tool results answer starts with its thinking.
  const loop = endpoint === 'messages' ? manualLoopThinkingIssue(body.thinking, body.messages) : undefined;
  if (loop) fail(loop.message);
  checkCacheMarkers(body, turns);
}

/**
 * A final assistant turn is a prefill: refused by Claude 4.6 and later models
 * (the migration guide: "Prefilling assistant messages returns a 400 error on
 * Claude 4.6 models"), not available with extended thinking, and its text may
 * not end with whitespace.
 */
function checkPrefill(body: Json, turns: readonly Turn[]): void {
  const last = turns.at(-1);
  if (last?.role !== 'assistant') return;
  const family = /claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?!\d)/.exec(String(body.model));
  if (family && (Number(family[1]) > 4 || (Number(family[1]) === 4 && Number(family[2] ?? 0) >= 6))) {
    fail('This model does not support assistant message prefill. The conversation must end with a user message.');
  }
  const thinking = body.thinking;
  if (isObject(thinking) && thinking.type !== 'disabled') fail('messages: a final assistant message (prefill) cannot be used with thinking enabled');
  const text = last.blocks.at(-1)?.block;
  if (text?.type === 'text' && typeof text.text === 'string' && /\s$/.test(text.text)) {
    fail('messages: final assistant content cannot end with trailing whitespace');
  }
}

function checkTools(tools: unknown): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) fail('tools: Input should be a valid list');
  const names = new Set<string>();
  tools.forEach((tool, i) => {
    if (!isObject(tool)) fail(`tools.${i}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string' || tool.name.length === 0) fail(`tools.${i}.name: Field required`);
    if (names.has(tool.name)) fail(`tools: Tool names must be unique. Duplicate name: ${tool.name}`);
    // A custom tool needs its schema (server tools, with a type like web_search_20250305, have none).
    if ((tool.type === undefined || tool.type === null || tool.type === 'custom') && !isObject(tool.input_schema))
      fail(`tools.${i}.custom.input_schema: Field required`);
    if ((tool.type === undefined || tool.type === null || tool.type === 'custom') && (tool.input_schema as Json).type === undefined)
      fail(`tools.${i}.custom.input_schema.type: Field required`);
    names.add(tool.name);
  });
}

function checkSystem(system: unknown): void {
  if (system === undefined || system === null || typeof system === 'string') return;
  if (!Array.isArray(system)) fail('system: Input should be a valid string or a list of text blocks');
  system.forEach((block, i) => {
    if (!isObject(block) || block.type !== 'text') fail(`system.${i}.type: Input should be 'text'`);
    if (typeof block.text !== 'string') fail(`system.${i}.text: Field required`);
    checkTextBlock(block, `system.${i}`);
  });
}

function checkTextBlock(block: Json, path: string): void {
  if (block.text !== '') {
    // The API's wording (real 400s): "messages: text content blocks must contain non-whitespace text".
    if (typeof block.text === 'string' && block.text.trim() === '') fail(`${path}.text: text content blocks must contain non-whitespace text`);
    return;
  }
  // The marker-specific wording wins: it is what the API answers for a marked empty block.
  if (block.cache_control != null) fail(REJECTION.emptyText);
  fail(`${path}.text: text content blocks must be non-empty`);
}

function checkMessages(messages: readonly unknown[]): Turn[] {
  const turns: { role: 'user' | 'assistant'; first: number; blocks: Located[] }[] = [];
  messages.forEach((m, n) => {
    if (!isObject(m)) fail(`messages.${n}: Input should be a valid dictionary`);
    if (m.role !== 'user' && m.role !== 'assistant') fail(`messages.${n}.role: Input should be 'user' or 'assistant'`);
    const isFinalAssistant = n === messages.length - 1 && m.role === 'assistant';
    const blocks = contentBlocks(m.content, n, isFinalAssistant);
    const last = turns.at(-1);
    if (last !== undefined && last.role === m.role) last.blocks.push(...blocks);
    else turns.push({ role: m.role, first: n, blocks: [...blocks] });
  });
  if (turns[0]?.role !== 'user') fail('messages: first message must use the "user" role');
  return turns;
}

function contentBlocks(content: unknown, n: number, isFinalAssistant: boolean): Located[] {
  const empty = `messages.${n}: all messages must have non-empty content except for the optional final assistant message`;
  if (typeof content === 'string') {
    if (content === '' && !isFinalAssistant) fail(empty);
    return content === '' ? [] : [{ block: { type: 'text', text: content }, path: `messages.${n}.content.0`, msg: n }];
  }
  if (content === undefined) fail(`messages.${n}.content: Field required`);
  if (!Array.isArray(content)) fail(`messages.${n}.content: Input should be a valid string or list`);
  if (content.length === 0 && !isFinalAssistant) fail(empty);
  return content.map((block, m) => {
    const path = `messages.${n}.content.${m}`;
    if (!isObject(block) || typeof block.type !== 'string') fail(`${path}.type: Field required`);
    checkBlock(block, path);
    return { block, path, msg: n };
  });
}

/**
 * The content block types a request may carry: the `ContentBlockParam` and `BetaContentBlockParam` unions of
 * `@anthropic-ai/sdk` 1.14 (generated from the API's specification; read 2026-12-01). Any other type is refused with
 * the API's discriminated-union wording: "messages.1.content.0: Input tag 'compaction' found using 'type' does not
 * match any of the expected tags: …" (quoted from a real 400 in a gateway's tests, 2026).
 */
const BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
  'tool_addition',
  'tool_removal',
  'mcp_tool_listing',
  'fallback',
];

/** The source types of an image and a document (SDK 1.14's request types) and the fields each one requires. */
const SOURCE_FIELDS: Record<string, Record<string, readonly string[]>> = {
  image: { base64: ['media_type', 'data'], url: ['url'], file: ['file_id'] },
  document: { base64: ['media_type', 'data'], text: ['media_type', 'data'], content: ['content'], url: ['url'], file: ['file_id'] },
};

/** An image or document source as the API's schema checks it (field paths name the tag, as pydantic does). */
function checkSource(block: Json, path: string): void {
  const kind = String(block.type);
  const source = block.source;
  if (!isObject(source)) fail(`${path}.${kind}.source: Field required`);
  const fields = SOURCE_FIELDS[kind]!;
  const tag = source.type;
  if (typeof tag !== 'string' || fields[tag] === undefined) {
    const expected = Object.keys(fields)
      .map((t) => `'${t}'`)
      .join(', ');
    fail(`${path}.${kind}.source: Input tag '${String(tag)}' found using 'type' does not match any of the expected tags: ${expected}`);
  }
  for (const field of fields[tag]!) if (source[field] === undefined || source[field] === null) fail(`${path}.${kind}.source.${tag}.${field}: Field required`);
  // The API's answer (anthropics/claude-code#8184, 2025-09-25).
  if (kind === 'image' && tag === 'base64' && !['image/jpeg', 'image/png', 'image/gif', 'image/webp'].includes(source.media_type as string)) {
    fail(`${path}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  }
  // SDK 1.16's Base64PDFSource and PlainTextSource each take one media type; the API's answer to a CSV sent as a base64
  // document (langchain-ai/langchain#37576, 2026-05-20).
  if (kind === 'document' && tag === 'base64' && source.media_type !== 'application/pdf') {
    fail(`${path}.document.source.base64.media_type: Input should be 'application/pdf'`);
  }
  if (kind === 'document' && tag === 'text' && source.media_type !== 'text/plain')
    fail(`${path}.document.source.text.media_type: Input should be 'text/plain'`);
  // The API's answer to an image over 5 MB (anthropics/claude-code#19631, 2026-01-21), here by its decoded bytes.
  if (kind === 'image' && tag === 'base64' && typeof source.data === 'string') {
    const bytes = Buffer.byteLength(source.data, 'base64');
    if (bytes > 5_242_880) fail(`${path}.image.source.base64: image exceeds 5 MB maximum: ${bytes} bytes > 5242880 bytes`);
    // The API's answer to an image over 8000 px a side (anthropics/claude-code#4778, 2025-08-04).
    const [w, h] = pixelSize(Buffer.from(source.data, 'base64'));
    if (w > 8000 || h > 8000) fail(`${path}.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels`);
  }
}

/** Width and height from an image's header (PNG, GIF, WebP VP8X/VP8L/VP8, JPEG frame), [0, 0] when not found. */
function pixelSize(img: Buffer): [number, number] {
  const tag = img.toString('latin1', 0, 16);
  if (tag.startsWith('\x89PNG') && img.length >= 24) return [img.readUInt32BE(16), img.readUInt32BE(20)];
  if (tag.startsWith('GIF8') && img.length >= 10) return [img.readUInt16LE(6), img.readUInt16LE(8)];
  if (tag.startsWith('RIFF') && tag.slice(8, 12) === 'WEBP' && img.length >= 30) {
    if (tag.slice(12) === 'VP8X') return [img.readUIntLE(24, 3) + 1, img.readUIntLE(27, 3) + 1];
    if (tag.slice(12) === 'VP8L') {
      const v = img.readUInt32LE(21);
      return [(v & 0x3fff) + 1, ((v >>> 14) & 0x3fff) + 1];
    }
    return [img.readUInt16LE(26) & 0x3fff, img.readUInt16LE(28) & 0x3fff];
  }
  // JPEG: walk the segments to the first start-of-frame marker (not DHT C4, JPG C8, DAC CC).
  for (let i = 2; img[0] === 0xff && img[1] === 0xd8 && i + 9 <= img.length; i += 2 + img.readUInt16BE(i + 2)) {
    const m = img[i + 1]!;
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) return [img.readUInt16BE(i + 7), img.readUInt16BE(i + 5)];
  }
  return [0, 0];
}

/** A search_result's required fields (SDK 1.14's `SearchResultBlockParam`), named as the API's schema names them. */
function checkSearchResult(block: Json, path: string): void {
  for (const field of ['source', 'title', 'content'])
    if (block[field] === undefined || block[field] === null) fail(`${path}.search_result.${field}: Field required`);
  if (!Array.isArray(block.content)) fail(`${path}.search_result.content: Input should be a valid list`);
  block.content.forEach((part, k) => {
    if (!isObject(part) || part.type !== 'text') fail(`${path}.search_result.content.${k}.type: Input should be 'text'`);
  });
}

function checkBlock(block: Json, path: string): void {
  if (!BLOCK_TYPES.includes(block.type as string)) {
    fail(
      `${path}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TYPES.map((t) => `'${t}'`).join(', ')}`,
    );
  }
  switch (block.type) {
    case 'image':
    case 'document':
      checkSource(block, path);
      break;
    case 'search_result':
      checkSearchResult(block, path);
      break;
    case 'text':
      if (typeof block.text !== 'string') fail(`${path}.text: Field required`);
      checkTextBlock(block, path);
      break;
    case 'thinking':
    case 'redacted_thinking':
      // The SDK types have no cache_control on thinking blocks; the API rejects the extra field.
      if ('cache_control' in block) fail(REJECTION.thinking(path, block.type));
      if (block.type === 'thinking' && typeof block.thinking !== 'string') fail(`${path}.thinking.thinking: Field required`);
      // The API's answer to a thinking block sent back without its signature (justlovemaki/AIClient2API#437, 2026-04-03).
      if (block.type === 'thinking' && typeof block.signature !== 'string') fail(`${path}.thinking.signature: Field required`);
      if (block.type === 'redacted_thinking' && typeof block.data !== 'string') {
        fail(`${path}.redacted_thinking.data: Field required`);
      }
      break;
    case 'fallback':
    case 'mcp_tool_listing':
      // SDK 1.14's BetaFallbackBlockParam and BetaMCPToolListingBlockParam have no cache_control either.
      if ('cache_control' in block) fail(REJECTION.thinking(path, block.type));
      break;
    case 'tool_use':
      if (typeof block.id !== 'string' || block.id.length === 0) fail(`${path}.tool_use.id: Field required`);
      // The API's pattern and wording (CommandCodeAI/command-code#323, 2026-05-06).
      if (!/^[a-zA-Z0-9_-]+$/.test(block.id)) fail(`${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== 'string' || block.name.length === 0) fail(`${path}.tool_use.name: Field required`);
      if (!isObject(block.input)) fail(`${path}.tool_use.input: Input should be a valid dictionary`);
      break;
    case 'tool_result': {
      if (typeof block.tool_use_id !== 'string') fail(`${path}.tool_result.tool_use_id: Field required`);
      const inner = block.content;
      if (Array.isArray(inner)) {
        inner.forEach((part, k) => {
          const innerPath = `${path}.content.${k}`;
          if (!isObject(part) || typeof part.type !== 'string') fail(`${innerPath}.type: Field required`);
          if (part.type === 'text') checkTextBlock(part, innerPath);
          if (part.type === 'image' || part.type === 'document') checkSource(part, innerPath);
          if (part.type === 'search_result') checkSearchResult(part, innerPath);
        });
      }
      break;
    }
    default:
      break;
  }
}

function checkToolPairing(turns: readonly Turn[]): void {
  const seenToolUse = new Set<string>();
  turns.forEach((turn, t) => {
    if (turn.role === 'assistant') {
      for (const { block, path } of turn.blocks) {
        if (block.type !== 'tool_use') continue;
        const id = String(block.id);
        if (seenToolUse.has(id)) fail(`${path}: \`tool_use\` ids must be unique`);
        seenToolUse.add(id);
      }
      const next = turns[t + 1];
      if (next === undefined) return;
      const answered = new Set(next.blocks.filter((b) => b.block.type === 'tool_result').map((b) => String(b.block.tool_use_id)));
      const missing = turn.blocks.filter((b) => b.block.type === 'tool_use' && !answered.has(String(b.block.id)));
      const firstMissing = missing[0];
      if (firstMissing !== undefined) {
        fail(
          `messages.${firstMissing.msg}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing
            .map((b) => String(b.block.id))
            .join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
      return;
    }
    const prev = turns[t - 1];
    const offered = new Set((prev?.blocks ?? []).filter((b) => b.block.type === 'tool_use').map((b) => String(b.block.id)));
    const answered = new Set<string>();
    let leading = true;
    for (const { block, path } of turn.blocks) {
      if (block.type !== 'tool_result') {
        leading = false;
        continue;
      }
      const id = String(block.tool_use_id);
      if (!offered.has(id)) {
        fail(
          `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      if (answered.has(id)) fail(`${path}: each \`tool_use\` id may be answered by only one \`tool_result\` block: ${id}`);
      answered.add(id);
      if (!leading) {
        fail(
          `messages.${turn.first}: Did not find ${offered.size} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
        );
      }
    }
  });
}

function readTtl(cc: unknown, path: string): '5m' | '1h' {
  if (!isObject(cc)) fail(`${path}.cache_control: Input should be a valid dictionary`);
  if (cc.type !== 'ephemeral') fail(`${path}.cache_control.type: Input should be 'ephemeral'`);
  if (cc.ttl === undefined || cc.ttl === null || cc.ttl === '5m') return '5m';
  if (cc.ttl === '1h') return '1h';
  fail(REJECTION.badTtl(path, cc.ttl));
}

/** Whether automatic caching may put its marker on this block. */
function autoEligible(block: Json): boolean {
  if (['thinking', 'redacted_thinking', 'fallback', 'mcp_tool_listing'].includes(block.type as string)) return false;
  if (block.type === 'text' && block.text === '') return false;
  return true;
}

function checkCacheMarkers(body: Json, turns: readonly Turn[]): void {
  // Every block that can sit in the cached prefix, in render order: tools → system → messages.
  const ordered: { block: Json; path: string }[] = [];
  if (Array.isArray(body.tools))
    body.tools.forEach((tool, i) => {
      ordered.push({ block: tool as Json, path: `tools.${i}` });
    });
  if (Array.isArray(body.system))
    body.system.forEach((b, i) => {
      ordered.push({ block: b as Json, path: `system.${i}` });
    });
  for (const turn of turns) for (const { block, path } of turn.blocks) ordered.push({ block, path });

  const markers: Marker[] = [];
  for (const { block, path } of ordered) {
    if (block.cache_control != null) markers.push({ path, ttl: readTtl(block.cache_control, path) });
    if (block.type === 'tool_result' && Array.isArray(block.content)) {
      block.content.forEach((part, k) => {
        if (isObject(part) && part.cache_control != null) {
          const inner = `${path}.content.${k}`;
          markers.push({ path: inner, ttl: readTtl(part.cache_control, inner) });
        }
      });
    }
  }

  if (body.cache_control != null) {
    const ttl = readTtl(body.cache_control, 'request');
    const target = [...ordered].reverse().find((o) => autoEligible(o.block));
    if (target !== undefined) {
      const explicit = markers.find((m) => m.path === target.path);
      if (explicit === undefined) markers.push({ path: target.path, ttl });
      else if (explicit.ttl !== ttl) {
        fail(REJECTION.autoConflict(explicit.ttl, ttl));
      }
      // Same TTL on the same block: automatic caching is a no-op and takes no extra slot.
    }
  }

  if (markers.length > MAX_CACHE_POINTS) {
    fail(REJECTION.tooMany(markers.length));
  }
  let seenShort = false;
  for (const marker of markers) {
    if (marker.ttl === '5m') seenShort = true;
    else if (seenShort) fail(REJECTION.ttlOrder);
  }
}

/**
 * The API's context-window check: a prompt longer than the model's window is refused with
 * `prompt is too long: N tokens > M maximum`. The window is the model's profile's, or 1,000,000
 * when the request carries `anthropic-beta: context-1m-2025-08-07` and the model is one the beta
 * covers. Models without a built-in profile are not checked here (the usage model answers them).
 */
export function contextWindowIssue(
  model: string,
  betaHeader: string | string[] | undefined,
  promptTokens: number,
  windowOverride?: number,
): RequestIssue | null {
  if (windowOverride !== undefined) {
    return promptTokens > windowOverride ? { message: `prompt is too long: ${promptTokens} tokens > ${windowOverride} maximum` } : null;
  }
  let profile: ModelProfile;
  try {
    profile = resolveProfile(apiModelId(model));
  } catch {
    return null;
  }
  const betas = (Array.isArray(betaHeader) ? betaHeader.join(',') : (betaHeader ?? '')).split(',').map((b) => b.trim());
  const opened = betas.includes(CONTEXT_1M_BETA) && LONG_CONTEXT_BETA_MODELS[profile.id] !== undefined;
  const window = opened ? Math.max(profile.contextWindow, 1_000_000) : profile.contextWindow;
  return promptTokens > window ? { message: `prompt is too long: ${promptTokens} tokens > ${window} maximum` } : null;
}

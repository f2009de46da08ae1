/**
 * `prepare` for a plain Bedrock Converse loop: the user keeps the Converse
 * request they build (`modelId`, `system`, `messages`, `toolConfig`, …) and
 * passes it through {@link prepareConverse} before `ConverseCommand` /
 * `ConverseStreamCommand`. The request is read as Messages API params (the
 * same conversation store, checks and sticky decisions as `prepare`), rendered
 * with Bedrock's cache rules and prices (`bedrockProfile`), and written back as
 * a Converse request with a `cachePoint` block after each cache point; every
 * other field passes through.
 *
 * Converse blocks read: `text`, `image` (bytes), `document` (bytes or text,
 * with its format, name, context and citations: a document block of the
 * format's media type, sent back as it came), `toolUse`, `toolResult` (text,
 * image, document and json content; json is sent as its JSON text),
 * `reasoningContent` (text with signature, or redacted bytes), and
 * `cachePoint` (the caller's are replaced by the engine's). Anything else
 * (video, guard content, an S3 location, a document's structured `content`
 * source, …) is an `InvalidParamsError` naming the block: send that request
 * without cachepoint.
 */
import { InvalidParamsError } from '../errors.js';
import { base64Of, base64Reader, decodedLength } from '../internal/base64.js';
import { oversizedImage } from '../internal/image-size.js';
import type { ReportedUsage } from '../models/pricing.js';
import type { ContentBlockParam, MessageParam, TextBlockParam, Tool } from '../providers/anthropic-types.js';
import { bedrockProfile, converseOfParams, DOCUMENT_MEDIA_TYPES, DOCUMENT_NAME } from '../providers/bedrock.js';
import type { BedrockConverseInput } from '../providers/bedrock-types.js';
import type { Rendered } from '../render/types.js';
import { describe } from '../trace/validate.js';
import { prepare, recordUsage, type ConversationRef, type PrepareOptions, type PreparePlan } from './prepare.js';

// TYPES

/** A Converse request, structurally (the AWS SDK's `ConverseCommandInput` of any version fits). */
export interface ConverseParams {
  readonly modelId: string | undefined;
  readonly system?: readonly object[] | undefined;
  readonly messages?: readonly { readonly role?: string | undefined; readonly content?: readonly object[] | undefined }[] | undefined;
  readonly toolConfig?: { readonly tools?: readonly object[] | undefined; readonly toolChoice?: unknown } | undefined;
  readonly inferenceConfig?: { readonly maxTokens?: number | undefined } | undefined;
  readonly additionalModelRequestFields?: unknown;
}

/** What {@link prepareConverse} returns. */
export interface PreparedConverse<P extends ConverseParams> {
  /** Send this: `new ConverseCommand(input)` or `new ConverseStreamCommand(input)`. */
  readonly input: Omit<P, 'system' | 'messages' | 'toolConfig' | 'modelId'> & BedrockConverseInput;
  readonly plan: PreparePlan;
  /** The full render (stream, cache points, state). */
  readonly rendered: Rendered;
}

// IMPLEMENTATION

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function base64(bytes: unknown, where: string): string {
  if (typeof bytes !== 'string' && !(bytes instanceof Uint8Array)) throw new InvalidParamsError(where, 'expected bytes (a Uint8Array, or its base64 text)');
  return base64Of(bytes);
}

/**
 * Bedrock's limits on a message's media: "Each image's size, height, and width must be no more than 3.75 MB, 8000 px,
 * and 8000 px", "Each document's size must be no more than 4.5 MB" (Converse API reference, Message,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html, read 2026-12-02). Whether a MB
 * is 10^6 bytes or 2^20 is not said: only what is over the larger reading is refused, as Bedrock refuses it either way.
 */
const CONVERSE_MAX_BYTES = { image: 3.75 * 1024 * 1024, document: 4.5 * 1024 * 1024 } as const;

/** Bytes (or their base64 text) within Bedrock's limit for that kind of block. */
function withinLimit(kind: 'image' | 'document', bytes: unknown, where: string): void {
  const size = bytes instanceof Uint8Array ? bytes.length : typeof bytes === 'string' ? decodedLength(bytes) : 0;
  const max = CONVERSE_MAX_BYTES[kind];
  if (size > max) {
    const mb = kind === 'image' ? '3.75' : '4.5';
    throw new InvalidParamsError(
      where,
      `${kind === 'image' ? 'an image' : 'a document'} of ${size.toLocaleString('en-US')} bytes: Bedrock takes at most ${mb} MB (${max.toLocaleString('en-US')} bytes) per ${kind}`,
    );
  }
}

/** Bedrock reads S3 sources for Amazon Nova models (the AWS SDKs' release notes, 2025-04-25); we found none for Claude. */
function s3(where: string): never {
  throw new InvalidParamsError(
    `${where}.s3Location`,
    'an S3 location is not read here (Bedrock takes S3 sources for Amazon Nova models; send Claude the bytes)',
  );
}

function image(block: Obj, where: string): ContentBlockParam {
  const img = block.image as { format?: string; source?: { bytes?: unknown; s3Location?: unknown } } | undefined;
  if (img?.source?.s3Location !== undefined) s3(`${where}.image.source`);
  if (!img?.format || img.source?.bytes === undefined) throw new InvalidParamsError(where, 'an image needs a format and source.bytes');
  withinLimit('image', img.source.bytes, `${where}.image.source.bytes`);
  const bytes = img.source.bytes;
  const oversized =
    bytes instanceof Uint8Array
      ? oversizedImage((s, e) => (s < bytes.length ? bytes.subarray(s, e) : undefined), 'Bedrock')
      : typeof bytes === 'string'
        ? oversizedImage(base64Reader(bytes), 'Bedrock')
        : undefined;
  if (oversized !== undefined) throw new InvalidParamsError(`${where}.image.source.bytes`, oversized);
  return {
    type: 'image',
    source: { type: 'base64', media_type: `image/${img.format}`, data: base64(img.source.bytes, `${where}.image.source.bytes`) },
  } as ContentBlockParam;
}

/** A document as the timeline keeps it: its format as the media type ({@link DOCUMENT_MEDIA_TYPES}), its name as the title. */
function document(block: Obj, where: string): ContentBlockParam {
  const d = block.document as Obj;
  const at = `${where}.document`;
  const mediaType = typeof d.format === 'string' ? (DOCUMENT_MEDIA_TYPES as Readonly<Record<string, string>>)[d.format] : undefined;
  if (mediaType === undefined)
    throw new InvalidParamsError(
      `${at}.format`,
      `expected one of ${Object.keys(DOCUMENT_MEDIA_TYPES).join(', ')} (prepareConverse sends the document back by it)`,
    );
  if (typeof d.name !== 'string' || d.name === '') throw new InvalidParamsError(`${at}.name`, 'expected a string (Converse requires a document name)');
  if (!DOCUMENT_NAME.test(d.name))
    throw new InvalidParamsError(
      `${at}.name`,
      `${JSON.stringify(d.name)}: Bedrock takes a document name of 1 to 200 characters: letters, digits, single spaces, hyphens, parentheses and square brackets (no dots: leave the extension out)`,
    );
  const src = isObj(d.source) ? d.source : {};
  if (src.s3Location !== undefined) s3(`${at}.source`);
  if (src.bytes !== undefined) withinLimit('document', src.bytes, `${at}.source.bytes`);
  const source =
    src.bytes !== undefined
      ? { type: 'base64', media_type: mediaType, data: base64(src.bytes, `${at}.source.bytes`) }
      : typeof src.text === 'string'
        ? { type: 'text', media_type: mediaType, data: src.text }
        : undefined;
  if (source === undefined) throw new InvalidParamsError(`${at}.source`, 'expected bytes or text (a structured content source is not mapped)');
  return {
    type: 'document',
    source,
    title: d.name,
    ...(typeof d.context === 'string' ? { context: d.context } : {}),
    ...(isObj(d.citations) ? { citations: d.citations } : {}),
  } as ContentBlockParam;
}

function unmapped(block: Obj, where: string): never {
  const kind = Object.keys(block).find((k) => k !== '$unknown') ?? 'empty';
  throw new InvalidParamsError(
    where,
    `a Converse "${kind}" block has no mapping in prepareConverse (text, image, document, toolUse, toolResult, reasoningContent and cachePoint do); send this request without cachepoint, or leave the block out`,
  );
}

/** One Converse content block as a Messages API block; `undefined` for a cachePoint (the engine places its own). */
function block(b: object, where: string): ContentBlockParam | undefined {
  const c = b as Obj;
  if (typeof c.text === 'string') return { type: 'text', text: c.text };
  if (isObj(c.cachePoint)) return undefined;
  if (isObj(c.image)) return image(c, where);
  if (isObj(c.document)) return document(c, where);
  if (isObj(c.toolUse)) {
    const t = c.toolUse;
    return { type: 'tool_use', id: String(t.toolUseId), name: String(t.name), input: t.input ?? {} };
  }
  if (isObj(c.toolResult)) {
    const r = c.toolResult;
    const parts = (Array.isArray(r.content) ? (r.content as Obj[]) : []).map((p, k): ContentBlockParam => {
      const at = `${where}.toolResult.content[${k}]`;
      if (typeof p.text === 'string') return { type: 'text', text: p.text };
      if (isObj(p.image)) return image(p, at);
      if (isObj(p.document)) return document(p, at);
      if ('json' in p) return { type: 'text', text: JSON.stringify(p.json) };
      return unmapped(p, at);
    });
    return {
      type: 'tool_result',
      tool_use_id: String(r.toolUseId),
      content: parts as never,
      ...(r.status === 'error' ? { is_error: true } : {}),
    };
  }
  if (isObj(c.reasoningContent)) {
    const r = c.reasoningContent;
    if (isObj(r.reasoningText)) {
      const t = r.reasoningText;
      return { type: 'thinking', thinking: String(t.text ?? ''), signature: typeof t.signature === 'string' ? t.signature : '' };
    }
    if (r.redactedContent !== undefined) return { type: 'redacted_thinking', data: base64(r.redactedContent, `${where}.reasoningContent.redactedContent`) };
  }
  return unmapped(c, where);
}

/**
 * Bedrock's rules on one message's media (Converse API reference, Message: "You can include up to 20 images", "You can
 * include up to five documents", "If you include a ContentBlock with a document field in the array, you must also
 * include a ContentBlock with a text field", "You can only include images and documents if the role is user";
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html, read 2026-12-02). A tool result's
 * images and documents are inside its toolResult block, not fields of the message's.
 *
 * @throws {InvalidParamsError} naming the block (or the message's content) that breaks one
 */
function refuseMessageMedia(role: string | undefined, content: readonly object[], i: number): void {
  let images = 0;
  let documents = 0;
  let text = false;
  for (let j = 0; j < content.length; j++) {
    const c = content[j] as Obj;
    if (typeof c.text === 'string') text = true;
    const media = isObj(c.image) ? 'image' : isObj(c.document) ? 'document' : undefined;
    if (media === undefined) continue;
    const where = `messages[${i}].content[${j}]`;
    if (role === 'assistant') throw new InvalidParamsError(where, `an ${role} message's ${media}: Bedrock takes images and documents in user messages only`);
    if (media === 'image' && ++images > 20) throw new InvalidParamsError(where, 'a 21st image in one message: Bedrock takes at most 20 images per message');
    if (media === 'document' && ++documents > 5)
      throw new InvalidParamsError(where, 'a sixth document in one message: Bedrock takes at most five documents per message');
  }
  if (documents > 0 && !text)
    throw new InvalidParamsError(
      `messages[${i}].content`,
      "a message with a document must also hold a text block (Bedrock's rule): add the question as { text }",
    );
}

/**
 * Converse messages as Messages API messages. A message object mapped before maps to the same object again
 * while its content array and blocks are the same (so `prepare` recognises a re-sent message by identity, at no
 * cost); a new message, a new or longer content array or a replaced block is mapped anew.
 */
const mapped = new WeakMap<object, { readonly content: readonly object[]; readonly blocks: readonly object[]; readonly message: MessageParam }>();

function messagesOf(messages: ConverseParams['messages']): MessageParam[] {
  if (messages !== undefined && !Array.isArray(messages))
    throw new InvalidParamsError('messages', `expected an array of Converse messages, got ${describe(messages)}`);
  return (messages ?? []).map((m, i) => {
    const content = m?.content;
    const seen = mapped.get(m);
    if (seen && seen.content === content && seen.blocks.length === content?.length && seen.blocks.every((b, j) => b === content[j])) return seen.message;
    checkMessage(m, i);
    refuseMessageMedia(m.role, content as readonly object[], i);
    const blocks = (content as readonly object[]).flatMap((b, j) => {
      const where = `messages[${i}].content[${j}]`;
      if (!isObj(b)) throw new InvalidParamsError(where, `expected a Converse content block ({ text }, { image }, { toolUse }, …), got ${describe(b)}`);
      const out = block(b, where);
      return out === undefined ? [] : [out];
    });
    const message: MessageParam = { role: m.role === 'assistant' ? 'assistant' : 'user', content: blocks };
    mapped.set(m, { content, blocks: [...content], message });
    return message;
  });
}

/**
 * A Converse message's shape, checked before it is mapped: what a JavaScript loop, or params carried over from the
 * Messages API (`content: 'Hi'`, a `system` role), would otherwise turn into a TypeError naming nothing, or a user message.
 */
function checkMessage(m: unknown, i: number): asserts m is { readonly role: 'user' | 'assistant'; readonly content: readonly unknown[] } {
  if (!isObj(m)) throw new InvalidParamsError(`messages[${i}]`, `expected a Converse message { role, content: [...] }, got ${describe(m)}`);
  if (m.role !== 'user' && m.role !== 'assistant') {
    throw new InvalidParamsError(
      `messages[${i}].role`,
      `expected "user" or "assistant" (Converse's roles; instructions go in system), got ${describe(m.role)}`,
    );
  }
  if (!Array.isArray(m.content)) {
    const hint = typeof m.content === 'string' ? `: Converse content is a list of blocks, [{ text: ${JSON.stringify(m.content.slice(0, 40))} }]` : '';
    throw new InvalidParamsError(`messages[${i}].content`, `expected an array of Converse content blocks, got ${describe(m.content)}${hint}`);
  }
}

function systemOf(system: ConverseParams['system']): TextBlockParam[] | undefined {
  if (!system) return undefined;
  if (!Array.isArray(system)) {
    const given: unknown = system; // typed as an array; a loop carried over from the Messages API passes a string
    const hint = typeof given === 'string' ? `: Converse system is a list of blocks, [{ text: ${JSON.stringify(given.slice(0, 40))} }]` : '';
    throw new InvalidParamsError('system', `expected an array of Converse system blocks, got ${describe(system)}${hint}`);
  }
  return system.flatMap((b, i): TextBlockParam[] => {
    const c = b as Obj;
    if (typeof c.text === 'string') return [{ type: 'text', text: c.text }];
    if (isObj(c.cachePoint)) return [];
    return unmapped(c, `system[${i}]`);
  });
}

function toolsOf(tools: readonly object[] | undefined): Tool[] | undefined {
  if (!tools) return undefined;
  if (!Array.isArray(tools)) throw new InvalidParamsError('toolConfig.tools', `expected an array of Converse tools ([{ toolSpec }]), got ${describe(tools)}`);
  return tools.flatMap((t, i): Tool[] => {
    const c = t as Obj;
    if (isObj(c.cachePoint)) return [];
    if (!isObj(c.toolSpec)) return unmapped(c, `toolConfig.tools[${i}]`);
    const s = c.toolSpec;
    const schema = isObj(s.inputSchema) ? s.inputSchema.json : undefined;
    return [
      { name: String(s.name), ...(typeof s.description === 'string' ? { description: s.description } : {}), input_schema: schema as Tool['input_schema'] },
    ];
  });
}

/**
 * Prepares a Bedrock Converse request: cachepoint's cache points (as `cachePoint` blocks), the volatile tail
 * last, the sticky prune / hide / compact decisions, under the conversation `options.conversationId` names
 * (the options are `prepare`'s). Claude models on Bedrock; the model's profile is `bedrockProfile(modelId)`
 * unless `options.render.profile` says otherwise.
 *
 * @throws {InvalidParamsError} naming the field for a request the API would refuse, or a block with no mapping
 * @example
 * const { input } = await prepareConverse({ modelId, system, messages, toolConfig, inferenceConfig }, { conversationId: 'task-42', tail: liveView() });
 * const out = await bedrock.send(new ConverseCommand(input));
 * await recordConverseUsage(out, { conversationId: 'task-42' });
 * messages.push(out.output!.message!);
 */
export async function prepareConverse<P extends ConverseParams>(input: P, options: PrepareOptions): Promise<PreparedConverse<P>> {
  const modelId = input.modelId;
  if (typeof modelId !== 'string' || modelId.length === 0)
    throw new InvalidParamsError('modelId', 'a Bedrock model id is required (e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0)');
  const fields = input.additionalModelRequestFields;
  const thinking = isObj(fields) ? fields.thinking : undefined;
  const system = systemOf(input.system);
  const tools = toolsOf(input.toolConfig?.tools);
  const profile = options.render?.profile ?? bedrockProfile(modelId, options.render?.profiles);
  const prepared = await prepare(
    {
      model: modelId,
      max_tokens: input.inferenceConfig?.maxTokens ?? 4096,
      ...(system ? { system } : {}),
      ...(tools ? { tools } : {}),
      messages: messagesOf(input.messages),
      ...(thinking === undefined ? {} : { thinking }),
    },
    { ...options, render: { ...options.render, profile } },
  );
  const out = prepared.params as { thinking?: unknown; system?: unknown; tools?: readonly unknown[]; messages: readonly { role: string; content: unknown }[] };
  const converse = converseOfParams(out);
  // prepare may turn thinking off for this request (a manual-thinking loop it cannot keep): say so to Bedrock too.
  const extra = thinking !== undefined && out.thinking !== thinking ? { ...(fields as Obj), thinking: out.thinking } : fields;
  const { system: _system, messages: _messages, toolConfig, ...rest } = input;
  const request = {
    ...rest,
    modelId,
    ...converse,
    ...(converse.toolConfig ? { toolConfig: { ...toolConfig, tools: converse.toolConfig.tools } } : {}),
    ...(extra === undefined ? {} : { additionalModelRequestFields: extra }),
  };
  return { input: request as unknown as PreparedConverse<P>['input'], plan: prepared.plan, rendered: prepared.rendered };
}

/**
 * Records a Converse response's usage (`ConverseCommand`'s output, or `collectConverseStream`'s) on its
 * conversation, as `recordUsage` does for a Messages response: stats and calibration.
 *
 * @returns false when there was no prepared request waiting for usage, or the store failed
 */
export async function recordConverseUsage(
  response: {
    readonly usage?:
      | {
          readonly inputTokens?: number | undefined;
          readonly outputTokens?: number | undefined;
          readonly cacheReadInputTokens?: number | undefined;
          readonly cacheWriteInputTokens?: number | undefined;
        }
      | undefined;
  },
  ref: ConversationRef,
): Promise<boolean> {
  if (!isObj(response)) throw new InvalidParamsError('response', `expected the ConverseCommand output (or collectConverseStream's), got ${describe(response)}`);
  const u = response.usage;
  if (!u || typeof u.inputTokens !== 'number') return false;
  const usage: ReportedUsage = {
    input_tokens: u.inputTokens,
    cache_read_input_tokens: u.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteInputTokens ?? 0,
    ...(typeof u.outputTokens === 'number' ? { output_tokens: u.outputTokens } : {}),
  };
  return recordUsage({ usage }, ref);
}

/**
 * AI SDK prompt → Anthropic Messages params, the way `@ai-sdk/anthropic`
 * serializes it (system messages → `system` blocks; user and tool messages
 * merged into user messages; consecutive assistant messages merged, text and
 * thinking before tool_use within a segment; tool results as strings or text
 * arrays; function tools as `{ name, description, input_schema }`). The engine
 * then sees the bytes the provider will send. Cache markers are not copied:
 * the engine decides them.
 *
 * Anything this mapping does not cover (files by provider reference, other media than images and PDFs, provider-executed
 * tools, provider tools, mid-conversation system messages, a trailing
 * assistant prefill, …) throws {@link UnmappablePromptError}: the middleware
 * then lets the call through unchanged, with one warning.
 */
import type { ContentBlockParam, MessageParam, TextBlockParam, Tool, ToolResultBlockParam } from '../../providers/anthropic-types.js';
import { sameData } from '../../internal/same-data.js';
import { base64Of, bytesOf } from '../../internal/base64.js';
import type { AssistantPart, CallOptions, CallTool, Prompt, PromptMessage, ProviderOptions, ToolResultOutput } from './types.js';

// TYPES

/** The prompt part of Messages params (what `prepare` reads and rewrites). */
export interface AnthropicPrompt {
  readonly tools?: Tool[];
  readonly system?: TextBlockParam[];
  readonly messages: MessageParam[];
}

/** A prompt shape the mapping does not cover; `reason` says which part, in words. */
export class UnmappablePromptError extends Error {
  override readonly name = 'UnmappablePromptError';
  constructor(readonly reason: string) {
    super(`cachepoint/ai-sdk cannot map this prompt: ${reason}`);
  }
}

// IMPLEMENTATION

function anthropicOptions(options: ProviderOptions | undefined): Record<string, unknown> | undefined {
  const a = options?.['anthropic'];
  return a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : undefined;
}

/**
 * A reasoning part's signature or redacted data: `@ai-sdk/anthropic` (and its Bedrock and Vertex variants) keep them
 * under `anthropic`; `@ai-sdk/amazon-bedrock`'s Converse models under `bedrock` and `amazonBedrock` (the provider
 * reads either back), with the same names. Either way they are the Anthropic block's `signature` / `data`.
 */
export function reasoningMetadata(options: ProviderOptions | undefined): { signature?: string; redactedData?: string } {
  for (const key of ['anthropic', 'bedrock', 'amazonBedrock']) {
    const o = options?.[key] as { signature?: unknown; redactedData?: unknown } | null | undefined;
    if (o === null || typeof o !== 'object') continue;
    if (typeof o.signature === 'string') return { signature: o.signature };
    if (typeof o.redactedData === 'string') return { redactedData: o.redactedData };
  }
  return {};
}

/**
 * `@ai-sdk/openai`'s reasoning parts: a GPT-5 answer's reasoning item, one part per summary part (one with empty text
 * when there is no summary), each with `providerOptions.openai.itemId`. The engine carries each as a thinking block
 * whose signature names the item and the part's place among that item's parts in its message (so the same part gets
 * the same bytes every call); the middleware hands the original part back to the provider, which sends the item.
 */
const OPENAI_REASONING = 'openai-reasoning:';

/** The OpenAI reasoning item id a part's options name, or undefined. */
export function openaiReasoningItem(options: ProviderOptions | undefined): string | undefined {
  const o = options?.['openai'] as { itemId?: unknown } | null | undefined;
  return o !== null && typeof o === 'object' && typeof o.itemId === 'string' ? o.itemId : undefined;
}

/**
 * The signature of the thinking block carrying an OpenAI reasoning part: `ordinals` counts the parts of each item
 * seen so far in the message (updated here).
 */
export function openaiReasoningSignature(itemId: string, ordinals: Map<string, number>): string {
  const k = ordinals.get(itemId) ?? 0;
  ordinals.set(itemId, k + 1);
  return `${OPENAI_REASONING}${itemId}:${k}`;
}

/** The item id an {@link openaiReasoningSignature} names, or undefined for any other signature. */
export function openaiReasoningOf(signature: string): string | undefined {
  return signature.startsWith(OPENAI_REASONING) ? signature.slice(OPENAI_REASONING.length, signature.lastIndexOf(':')) : undefined;
}

/** Whether the call streams with eager tool input (the provider then adds `eager_input_streaming: true` to every function tool). */
function eagerToolInput(call: CallOptions, type: 'generate' | 'stream'): boolean {
  return type === 'stream' && anthropicOptions(call.providerOptions)?.['toolStreaming'] !== false;
}

function mapTool(tool: CallTool, eager: boolean): Tool {
  if (tool.type !== 'function') throw new UnmappablePromptError(`provider tool "${tool.name}" (${tool.id})`);
  const a = anthropicOptions(tool.providerOptions);
  if (tool.inputExamples !== undefined || tool.strict !== undefined || a?.['deferLoading'] !== undefined || a?.['allowedCallers'] !== undefined) {
    throw new UnmappablePromptError(`tool "${tool.name}" uses strict, input examples, deferLoading or allowedCallers`);
  }
  const eagerHere = (a?.['eagerInputStreaming'] as boolean | undefined) ?? eager;
  // Field order as the provider writes it; `description: undefined` disappears in JSON as it does there.
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Tool['input_schema'],
    ...(eagerHere ? { eager_input_streaming: true } : {}),
  } as Tool;
}

function toolResultContent(output: ToolResultOutput, tool: string): NonNullable<ToolResultBlockParam['content']> {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'execution-denied':
      return output.reason ?? 'Tool call execution denied.';
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'content':
      return output.value.map((p) => (p.type === 'text' ? { type: 'text' as const, text: p.text } : (resultMedia(p, tool) as TextBlockParam)));
  }
}

/**
 * An image or PDF part of a tool result as the block the provider makes of it: ai 7's `file` part (tagged data, as a
 * user file part), ai 6's `image-data` / `file-data` (base64) and `image-url` / `file-url`, ai 5's `media` (base64).
 */
function resultMedia(part: { type: string; [k: string]: unknown }, tool: string): ContentBlockParam {
  const { type, mediaType, data, url } = part as { type: string; mediaType?: unknown; data?: unknown; url?: unknown };
  if ((type === 'image-url' || type === 'file-url') && typeof url === 'string') {
    return { type: type === 'image-url' ? 'image' : 'document', source: { type: 'url', url } } as ContentBlockParam;
  }
  const media = typeof mediaType === 'string' ? mediaType : '';
  if ((type === 'file' || type === 'image-data' || type === 'file-data' || type === 'media') && (media.startsWith('image/') || media === 'application/pdf')) {
    return fileBlock({ mediaType: media, data });
  }
  throw new UnmappablePromptError(`a ${type} part${media ? ` (${media})` : ''} in the result of tool "${tool}"`);
}

/** tool_use input must be an object; the provider parses a JSON string and wraps anything else. */
function toolInput(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // falls through to the wrapper, as the provider does
    }
  }
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : { rawInvalidInput: input };
}

function assistantBlock(part: AssistantPart, sendReasoning: boolean, ordinals: Map<string, number>): ContentBlockParam | undefined {
  switch (part.type) {
    case 'text': {
      const a = anthropicOptions(part.providerOptions);
      if (a?.['type'] === 'compaction' || a?.['citations'] !== undefined) throw new UnmappablePromptError('an assistant compaction or cited text part');
      return { type: 'text', text: part.text };
    }
    case 'reasoning': {
      if (!sendReasoning) return undefined;
      const { signature, redactedData } = reasoningMetadata(part.providerOptions);
      if (signature !== undefined) return { type: 'thinking', thinking: part.text, signature };
      if (redactedData !== undefined) return { type: 'redacted_thinking', data: redactedData };
      const item = openaiReasoningItem(part.providerOptions);
      if (item !== undefined) return { type: 'thinking', thinking: part.text, signature: openaiReasoningSignature(item, ordinals) };
      throw new UnmappablePromptError('a reasoning part without an Anthropic signature or an OpenAI item id');
    }
    case 'tool-call': {
      if (part.providerExecuted === true) throw new UnmappablePromptError(`provider-executed tool call "${part.toolName}"`);
      const a = anthropicOptions(part.providerOptions);
      const caller = a?.['caller'] as { type?: unknown } | undefined;
      if ((caller !== undefined && caller.type !== 'direct') || a?.['toolsetName'] !== undefined) {
        throw new UnmappablePromptError(`tool call "${part.toolName}" with a code-execution caller or toolset metadata`);
      }
      const block = { type: 'tool_use' as const, id: part.toolCallId, name: part.toolName, input: toolInput(part.input) };
      return caller === undefined ? block : ({ ...block, caller: { type: 'direct' } } as ContentBlockParam);
    }
    case 'custom':
      // The provider sends only `anthropic.fallback` custom parts; stream bookkeeping parts (message_start, …) are dropped.
      if (part.kind === 'anthropic.fallback') throw new UnmappablePromptError('an anthropic.fallback part');
      return undefined;
    default:
      throw new UnmappablePromptError(`an assistant ${part.type} part`);
  }
}

/** Text and thinking stay where they are; within each segment between thinking blocks, tool_use goes last (the provider's order). */
function toolUseLast(content: ContentBlockParam[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  let segment: ContentBlockParam[] = [];
  const flush = () => {
    out.push(...segment.filter((b) => b.type !== 'tool_use'), ...segment.filter((b) => b.type === 'tool_use'));
    segment = [];
  };
  for (const b of content) {
    if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      flush();
      out.push(b);
    } else segment.push(b);
  }
  flush();
  return out;
}

/** What a file part holds: base64 bytes, a URL or text. ai 5 and 6 give bytes, base64 or a URL; ai 7 a tagged object. */
function fileData(data: unknown): { base64?: string; url?: string; text?: string } | undefined {
  if (data instanceof Uint8Array) return { base64: base64Of(data) };
  if (typeof data === 'string') return { base64: data };
  if (data instanceof URL) return { url: data.toString() };
  const d = data as { type?: unknown; data?: unknown; url?: unknown; text?: unknown } | null;
  if (d === null || typeof d !== 'object') return undefined;
  if (d.type === 'data') return fileData(d.data);
  if (d.type === 'url' && (d.url instanceof URL || typeof d.url === 'string')) return { url: String(d.url) };
  if (d.type === 'text' && typeof d.text === 'string') return { text: d.text };
  return undefined; // a provider file reference: the Files API, not mapped
}

/** An image's media type from its first bytes (the AI SDK passes `image/*` when it could not tell). */
function sniffImage(base64: string): string | undefined {
  const head: Record<string, string> = { iVBORw0KGgo: 'image/png', '/9j/': 'image/jpeg', R0lGOD: 'image/gif', UklGR: 'image/webp' };
  for (const [prefix, type] of Object.entries(head)) if (base64.startsWith(prefix)) return type;
  return undefined;
}

/** UTF-8 text of base64 bytes. */
function textOf(base64: string): string {
  return new TextDecoder().decode(bytesOf(base64));
}

/**
 * The image or document block `@ai-sdk/anthropic` makes of a user file part (images, PDFs and plain text, by bytes
 * or URL; the title is the file name). The engine reads it for its bytes; the middleware sends the part itself back
 * (see {@link mediaKey}), so the provider serializes it as it would have.
 */
export function fileBlock(part: { mediaType?: unknown; data?: unknown; filename?: unknown }): ContentBlockParam {
  const media = typeof part.mediaType === 'string' ? part.mediaType : '';
  const data = fileData(part.data);
  if (!data) throw new UnmappablePromptError(`a user file part (${media || 'no media type'}) given by provider reference`);
  const title = typeof part.filename === 'string' ? { title: part.filename } : {};
  if (media.startsWith('image/')) {
    if (data.url !== undefined) return { type: 'image', source: { type: 'url', url: data.url } };
    const type = media === 'image/*' && data.base64 !== undefined ? sniffImage(data.base64) : media;
    if (type === undefined || data.base64 === undefined) throw new UnmappablePromptError(`a user image part (${media}) whose type cannot be told`);
    return { type: 'image', source: { type: 'base64', media_type: type, data: data.base64 } } as ContentBlockParam;
  }
  if (media === 'application/pdf' && data.text === undefined) {
    const source = data.url !== undefined ? { type: 'url', url: data.url } : { type: 'base64', media_type: 'application/pdf', data: data.base64 };
    return { type: 'document', source, ...title } as ContentBlockParam;
  }
  if (media === 'text/plain') {
    const source =
      data.url !== undefined ? { type: 'url', url: data.url } : { type: 'text', media_type: 'text/plain', data: data.text ?? textOf(data.base64!) };
    return { type: 'document', source, ...title } as ContentBlockParam;
  }
  throw new UnmappablePromptError(`a user file part of media type ${media || '(none)'}`);
}

/** The key an image or document block is known by: the same for the block made of a part and any copy of it. */
export function mediaKey(block: ContentBlockParam): string | undefined {
  if (block.type !== 'image' && block.type !== 'document') return undefined;
  const s = block.source as { type?: string; media_type?: string; data?: string; url?: string };
  return `${block.type}|${s.type}|${s.media_type ?? ''}|${s.data ?? s.url ?? ''}`;
}

function userBlocks(message: Extract<PromptMessage, { role: 'user' | 'tool' }>): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  if (message.role === 'user') {
    for (const part of message.content) {
      if (part.type === 'text') out.push({ type: 'text', text: part.text });
      else if (part.type === 'file') out.push(fileBlock(part));
      else throw new UnmappablePromptError(`a user ${(part as { type: string }).type} part`);
    }
    return out;
  }
  for (const part of message.content) {
    if (part.type === 'tool-approval-response') continue;
    if (anthropicOptions(part.providerOptions)?.['toolsetName'] !== undefined)
      throw new UnmappablePromptError(`tool result "${part.toolName}" with toolset metadata`);
    const isError = part.output.type === 'error-text' || part.output.type === 'error-json';
    out.push({
      type: 'tool_result',
      tool_use_id: part.toolCallId,
      content: toolResultContent(part.output, part.toolName),
      ...(isError ? { is_error: true } : {}),
    });
  }
  return out;
}

/**
 * What one mapping produced, kept so that the next call of the same
 * conversation maps only what changed: the AI SDK messages it read, the
 * Anthropic messages it built (and, per message, where its source messages
 * end), the tools. Read only: the next mapping reuses these objects (so
 * `prepare` recognises the re-sent messages by identity) and never changes them.
 */
export interface MappedPrompt {
  /** The call's prompt this was mapped from. */
  readonly prompt: Prompt;
  /** `providerOptions.anthropic.sendReasoning` was not false. */
  readonly sendReasoning: boolean;
  /** How many leading system messages the prompt had. */
  readonly systemEnd: number;
  /** `ends[j]`: the index in `prompt` one past the last message merged into `result.messages[j]`. */
  readonly ends: readonly number[];
  /** The call's tools, and whether they were mapped with eager input streaming. */
  readonly callTools: CallOptions['tools'];
  readonly eager: boolean;
  readonly result: AnthropicPrompt;
}

/** How much of a previous mapping {@link mapPrompt} reused. */
export interface PromptReuse {
  /** Leading prompt messages equal (as plain data) to the previous mapping's. */
  readonly same: number;
  /** Leading Anthropic messages taken as they were (the same objects). */
  readonly messages: number;
  /** The prompt index the mapping went on from (every message before it was mapped before). */
  readonly from: number;
}

/** The Anthropic role a prompt message maps to (user and tool messages merge into user messages). */
function roleOf(m: PromptMessage): 'user' | 'assistant' {
  return m.role === 'assistant' ? 'assistant' : 'user';
}

/** How many leading messages of `prompt` equal those of `previous` as plain data (strings by `===`, nothing stringified). */
function samePrefix(prompt: Prompt, previous: Prompt): number {
  const n = Math.min(prompt.length, previous.length);
  let i = 0;
  while (i < n && sameData(prompt[i], previous[i])) i++;
  return i;
}

/**
 * How many of `previous`'s Anthropic messages the mapping of `prompt` would
 * build exactly as they are: each one whose source messages all lie in the
 * first `same` messages (equal to the previous prompt's) and is closed there
 * (the next prompt message, if any, starts another role).
 */
function reusable(prompt: Prompt, previous: MappedPrompt, same: number): number {
  if (same <= previous.systemEnd) return 0;
  const ends = previous.ends;
  const messages = previous.result.messages;
  let r = ends.length;
  while (r > 0 && ends[r - 1]! > same) r--;
  if (r > 0 && ends[r - 1] === same && same < prompt.length && roleOf(prompt[same]!) === messages[r - 1]!.role) r--;
  return r;
}

/**
 * Maps a call's prompt and tools to Anthropic Messages params, reusing what
 * `previous` (the mapping of an earlier call of the same conversation) built
 * for the messages the two prompts share: the leading messages equal as plain
 * data keep their Anthropic messages (the same objects), the rest is mapped as
 * {@link toAnthropicPrompt} maps it; the result is equal to
 * `toAnthropicPrompt(call, type)`. The AI SDK hands every call new message
 * objects with the same values, so the shared part is found by value.
 *
 * @example
 * const first = mapPrompt(params, 'generate');
 * const next = mapPrompt(nextParams, 'generate', first.mapped); // maps only the new messages
 */
export function mapPrompt(
  call: CallOptions,
  type: 'generate' | 'stream',
  previous?: MappedPrompt,
): { readonly mapped: MappedPrompt; readonly reuse: PromptReuse } {
  const prompt: Prompt = call.prompt;
  const sendReasoning = anthropicOptions(call.providerOptions)?.['sendReasoning'] !== false;
  const base = previous?.sendReasoning === sendReasoning ? previous : undefined;
  const same = base ? samePrefix(prompt, base.prompt) : 0;
  const kept = base ? reusable(prompt, base, same) : 0;
  let system: TextBlockParam[];
  let i: number;
  if (base && kept > 0) {
    system = base.result.system ?? [];
    i = base.ends[kept - 1]!;
  } else {
    system = [];
    for (i = 0; i < prompt.length && prompt[i]!.role === 'system'; i++) {
      const m = prompt[i] as Extract<PromptMessage, { role: 'system' }>;
      const a = anthropicOptions(m.providerOptions);
      if (a?.['toolChanges'] !== undefined || a?.['clearAt'] !== undefined || a?.['effort'] !== undefined) {
        throw new UnmappablePromptError('a system message with tool changes, clearAt or effort');
      }
      system.push({ type: 'text', text: m.content });
    }
  }
  const systemEnd = base && kept > 0 ? base.systemEnd : i;
  const from = i;
  const messages: MessageParam[] = base && kept > 0 ? base.result.messages.slice(0, kept) : [];
  const ends: number[] = base && kept > 0 ? base.ends.slice(0, kept) : [];
  for (; i < prompt.length; i++) {
    const m = prompt[i]!;
    if (m.role === 'system') throw new UnmappablePromptError('a system message after the first user or assistant message');
    const role = roleOf(m);
    // Merge into the previous message only when this mapping built it (a reused one is closed: see reusable).
    const last = messages.length > kept ? messages.at(-1) : undefined;
    const target: ContentBlockParam[] = last?.role === role ? (last.content as ContentBlockParam[]) : [];
    if (target !== last?.content) {
      messages.push({ role, content: target });
      ends.push(i + 1);
    } else ends[ends.length - 1] = i + 1;
    if (m.role === 'assistant') {
      const ordinals = new Map<string, number>();
      for (const part of m.content) {
        if (part.type === 'text' && part.text.length === 0) continue;
        const b = assistantBlock(part, sendReasoning, ordinals);
        if (b) target.push(b);
      }
    } else target.push(...userBlocks(m));
  }
  for (let j = kept; j < messages.length; j++) {
    const m = messages[j]!;
    if (m.role === 'assistant') m.content = toolUseLast(m.content as ContentBlockParam[]);
  }
  if (messages.at(-1)?.role !== 'user') throw new UnmappablePromptError('the prompt does not end with a user or tool message (assistant prefill)');
  // A reused message was checked when it was built.
  for (let j = kept; j < messages.length; j++)
    if ((messages[j]!.content as ContentBlockParam[]).length === 0) throw new UnmappablePromptError('an empty message');
  const eager = eagerToolInput(call, type);
  const tools =
    previous && previous.eager === eager && sameData(call.tools, previous.callTools)
      ? (previous.result.tools ?? [])
      : (call.tools ?? []).map((t) => mapTool(t, eager));
  const result: AnthropicPrompt = {
    ...(tools.length > 0 ? { tools } : {}),
    ...(system.length > 0 ? { system } : {}),
    messages,
  };
  return {
    mapped: { prompt, sendReasoning, systemEnd, ends, callTools: call.tools, eager, result },
    reuse: { same, messages: kept, from },
  };
}

/**
 * Maps a call's prompt and tools to Anthropic Messages params (prompt fields only).
 *
 * @example
 * const { system, tools, messages } = toAnthropicPrompt(params, 'generate');
 */
export function toAnthropicPrompt(call: CallOptions, type: 'generate' | 'stream'): AnthropicPrompt {
  return mapPrompt(call, type).mapped.result;
}

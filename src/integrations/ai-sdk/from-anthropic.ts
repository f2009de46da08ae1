/**
 * Anthropic Messages params (what the engine rendered) → the AI SDK call's
 * prompt and tools, with the provider's cache marker (by default
 * `providerOptions.anthropic.cacheControl`; see {@link MarkerTarget}) on exactly
 * the parts whose blocks carry `cache_control`, and on no other part.
 *
 * The original parts are reused where the rendered block is the same payload
 * (tool calls by id, tool results by id when their content is unchanged,
 * thinking by signature, tools by name), so provider metadata the mapping
 * does not read survives. Everything else (notes that replaced pruned or
 * hidden payloads, summaries, the tail, the recall tool) becomes a new part.
 * Every cache marker the caller had put anywhere is removed: the engine's
 * markers are the only ones sent (never a fifth).
 */
import type { CacheControlEphemeral, ContentBlockParam, TextBlockParam, Tool, ToolResultBlockParam } from '../../providers/anthropic-types.js';
import { sameData } from '../../internal/same-data.js';
import {
  fileBlock,
  mediaKey,
  openaiReasoningItem,
  openaiReasoningOf,
  openaiReasoningSignature,
  reasoningMetadata,
  UnmappablePromptError,
  type AnthropicPrompt,
} from './to-anthropic.js';
import type {
  AssistantPart,
  CallOptions,
  CallTool,
  FunctionTool,
  Prompt,
  PromptMessage,
  ProviderOptions,
  ReasoningPart,
  ToolCallPart,
  ToolResultOutput,
  ToolResultPart,
  UserPart,
} from './types.js';

// IMPLEMENTATION

/**
 * Where a cache marker goes for each provider the middleware serves: the engine
 * writes one kind; every kind the caller had put anywhere is removed.
 * `@ai-sdk/anthropic` 4.x also reads a call's options under the provider's own
 * key (`googleVertex`, legacy `vertex`, `bedrock`: the provider id before its
 * first dot) over `anthropic`'s, so `cacheControl` there is request-level
 * automatic caching on the Vertex and Bedrock Anthropic models.
 */
const MARKER_KEYS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['cacheControl', 'cache_control'],
  openai: ['promptCacheBreakpoint'],
  bedrock: ['cachePoint', 'cacheControl', 'cache_control'],
  amazonBedrock: ['cachePoint'],
  googleVertex: ['cacheControl', 'cache_control'],
  vertex: ['cacheControl', 'cache_control'],
};

/** Where a marker sits: on a tool, on a system message, or on a content part. */
export type MarkerSite = 'tool' | 'system' | 'part';

/**
 * How the engine's cache marker (as rendered for Anthropic) is written onto a
 * provider's options: the provider key and the fields to set, or undefined
 * when that provider takes no marker there.
 */
export type MarkerTarget = ((
  marker: CacheControlEphemeral,
  site: MarkerSite,
) => { readonly key: string; readonly options: Record<string, unknown> } | undefined) & {
  /**
   * Send every tool output as a list of text parts, the marker on its last part. `@ai-sdk/openai`'s Responses model
   * sends a text or JSON output as a plain string, but as a one-part list when it carries a marker: a result that was
   * the newest cache point in one request and is not in the next changed bytes there, so what the first wrote was
   * never read (a bust every round). In the list form its bytes are the same marked or not.
   */
  readonly listOutputs?: boolean;
  /**
   * Write a marker that falls on a message's last part on the message instead. `@ai-sdk/amazon-bedrock` 3.x (ai 5)
   * reads `cachePoint` on messages only; 4.x and 5.x read it on parts and messages alike and put a message's right
   * after its last part: the same place on every version.
   */
  readonly onMessage?: boolean;
};

/** `providerOptions.anthropic.cacheControl` (Anthropic, and its Bedrock and Vertex variants). */
export const ANTHROPIC_MARKER: MarkerTarget = (marker) => ({ key: 'anthropic', options: { cacheControl: { ...marker } } });

function markerKeysIn(options: ProviderOptions | undefined): [string, string][] {
  const found: [string, string][] = [];
  if (options === undefined) return found; // most parts have none (this runs for every part of every call)
  for (const [provider, keys] of Object.entries(MARKER_KEYS)) {
    const a = options?.[provider] as Record<string, unknown> | undefined;
    if (a === undefined || a === null || typeof a !== 'object') continue;
    for (const k of keys) if (a[k] !== undefined && a[k] !== null) found.push([provider, k]);
  }
  return found;
}

function hasMarker(options: ProviderOptions | undefined): boolean {
  return markerKeysIn(options).length > 0;
}

/** `providerOptions` without any cache marker (undefined when nothing is left). */
function unmarked(options: ProviderOptions | undefined): ProviderOptions | undefined {
  const found = markerKeysIn(options);
  if (found.length === 0) return options;
  const out: Record<string, unknown> = { ...options };
  for (const [provider, k] of found) {
    const a = { ...(out[provider] as Record<string, unknown>) };
    delete a[k];
    if (Object.keys(a).length > 0) out[provider] = a;
    else delete out[provider];
  }
  return Object.keys(out).length > 0 ? (out as ProviderOptions) : undefined;
}

/** `providerOptions` with exactly the engine's marker (or none). */
function withMarker(
  options: ProviderOptions | undefined,
  marker: CacheControlEphemeral | null | undefined,
  target: MarkerTarget,
  site: MarkerSite,
): ProviderOptions | undefined {
  const base = unmarked(options);
  const written = marker ? target(marker, site) : undefined;
  if (!written) return base;
  const own = { ...((base?.[written.key] as Record<string, unknown> | undefined) ?? {}), ...written.options };
  return { ...base, [written.key]: own } as ProviderOptions;
}

/** Sets `providerOptions` on an object, dropping the key when there are none. */
function setOptions<T extends object>(x: T, options: ProviderOptions | undefined): T {
  // Already so (most parts: no options, or the caller's own without a marker): the object itself, not a copy.
  if ((x as { providerOptions?: ProviderOptions }).providerOptions === options && (options !== undefined || !('providerOptions' in x))) return x;
  const { providerOptions: _old, ...rest } = x as T & { providerOptions?: ProviderOptions };
  return (options === undefined ? rest : { ...rest, providerOptions: options }) as T;
}

function unmarkedOutput(output: ToolResultOutput): ToolResultOutput {
  let out = output;
  if ('providerOptions' in out && hasMarker(out.providerOptions)) out = setOptions(out, unmarked(out.providerOptions));
  if (out.type === 'content' && out.value.some((p) => hasMarker(p.providerOptions))) {
    out = { ...out, value: out.value.map((p) => setOptions(p, unmarked(p.providerOptions))) };
  }
  return out;
}

/**
 * Whether the call carries any Anthropic cache marker of the caller's own
 * (request-level automatic caching, a tool, a message, a part, a tool output).
 */
export function callerMarkers(call: CallOptions): boolean {
  return callerMarkersOutsidePrompt(call) || firstMarkedMessage(call.prompt, 0) >= 0;
}

/** Whether the call's own options or one of its tools carries a caller cache marker. */
export function callerMarkersOutsidePrompt(call: CallOptions): boolean {
  return hasMarker(call.providerOptions) || (call.tools ?? []).some((t) => t.type === 'function' && hasMarker(t.providerOptions));
}

/** The index of the first message at or after `from` that carries a caller cache marker (on itself, a part or a tool output), or -1. */
export function firstMarkedMessage(prompt: Prompt, from: number): number {
  for (let i = from; i < prompt.length; i++) {
    const m = prompt[i]!;
    if (hasMarker(m.providerOptions)) return i;
    if (m.role === 'system') continue;
    for (const p of m.content as readonly { providerOptions?: ProviderOptions; output?: ToolResultOutput }[]) {
      if (hasMarker(p.providerOptions)) return i;
      const o = p.output;
      if (o && 'providerOptions' in o && hasMarker(o.providerOptions)) return i;
      if (o?.type === 'content' && o.value.some((v) => hasMarker(v.providerOptions))) return i;
    }
  }
  return -1;
}

/**
 * The parts of a call's prompt by payload identity (the last one wins when an
 * id repeats), and the tool-result content the engine was given for each
 * tool_use id (from the Anthropic params the prompt mapped to). Built over the
 * whole prompt ({@link indexPrompt} from 0), or extended over the messages a
 * longer prompt appended (the middleware keeps one per conversation).
 */
export interface PromptIndex {
  readonly calls: Map<string, ToolCallPart>;
  readonly results: Map<string, ToolResultPart>;
  readonly thinking: Map<string, ReasoningPart>;
  /** User file parts by the {@link mediaKey} of the block they map to. */
  readonly files: Map<string, UserPart>;
  readonly given: Map<string, ToolResultBlockParam['content']>;
}

/** An empty {@link PromptIndex}. */
export function emptyIndex(): PromptIndex {
  return { calls: new Map(), results: new Map(), thinking: new Map(), files: new Map(), given: new Map() };
}

/**
 * Adds to `index` the parts of `prompt` from message `from` on and the tool
 * results of `before.messages` from message `fromMessage` on (in order, so a
 * later part with the same id wins, as over the whole prompt).
 */
export function indexPrompt(index: PromptIndex, prompt: Prompt, from: number, before: AnthropicPrompt, fromMessage: number): PromptIndex {
  const o = index;
  for (let i = from; i < prompt.length; i++) {
    const m = prompt[i]!;
    if (m.role === 'assistant') {
      const ordinals = new Map<string, number>();
      for (const p of m.content) {
        if (p.type === 'tool-call') o.calls.set(p.toolCallId, p);
        else if (p.type === 'reasoning') {
          const a = reasoningMetadata(p.providerOptions);
          const item = a.signature === undefined && a.redactedData === undefined ? openaiReasoningItem(p.providerOptions) : undefined;
          const key =
            a.signature !== undefined
              ? thinkingKey(a.signature, p.text)
              : a.redactedData !== undefined
                ? `r:${a.redactedData}`
                : item !== undefined
                  ? thinkingKey(openaiReasoningSignature(item, ordinals), p.text)
                  : undefined;
          if (key) o.thinking.set(key, p);
        }
      }
    } else if (m.role === 'tool') {
      for (const p of m.content) if (p.type === 'tool-result') o.results.set(p.toolCallId, p);
    } else if (m.role === 'user') {
      for (const p of m.content) if (p.type === 'file') o.files.set(mediaKey(fileBlock(p))!, p);
    }
  }
  const messages = before.messages;
  for (let i = fromMessage; i < messages.length; i++) {
    for (const b of messages[i]!.content as ContentBlockParam[]) if (b.type === 'tool_result') o.given.set(b.tool_use_id, b.content);
  }
  return o;
}

/**
 * A thinking part's key: its signature and its text. A signature alone is not unique (the fake server signs every
 * block alike; nothing says a provider never repeats one), and a shared key handed one step's part back for another.
 */
function thinkingKey(signature: string, text: string): string {
  return `s:${signature}\u0000${text}`;
}

/** Parts of the original prompt by payload identity, and its tools by name. */
interface Originals extends PromptIndex {
  readonly tools: Map<string, CallTool>;
}

function sameContent(a: ToolResultBlockParam['content'], b: ToolResultBlockParam['content']): boolean {
  // Two strings have the same JSON exactly when they are equal (and a string never has an array's): no copy of the history per call.
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function outputOf(
  block: ToolResultBlockParam,
  original: ToolResultPart | undefined,
  originalContent: ToolResultBlockParam['content'] | undefined,
): ToolResultOutput {
  if (original && originalContent !== undefined && sameContent(block.content, originalContent)) return unmarkedOutput(original.output);
  const c = block.content;
  if (typeof c === 'string' || c === undefined) return { type: block.is_error ? 'error-text' : 'text', value: c ?? '' };
  return {
    type: 'content',
    value: c.map((b) => {
      if (b.type !== 'text') throw new UnmappablePromptError(`a rendered ${b.type} block in a tool result`);
      return { type: 'text' as const, text: b.text };
    }),
  };
}

/** A tool result with its output as a list of text parts (see {@link MarkerTarget}'s `listOutputs`), marked on its last one. */
function listed(part: ToolResultPart, marker: CacheControlEphemeral | null | undefined, target: MarkerTarget): ToolResultPart {
  const out = part.output;
  const value =
    out.type === 'content'
      ? out.value
      : out.type === 'text' || out.type === 'error-text'
        ? [{ type: 'text' as const, text: out.value }]
        : out.type === 'json' || out.type === 'error-json'
          ? [{ type: 'text' as const, text: JSON.stringify(out.value) }]
          : undefined;
  const options = unmarked(part.providerOptions);
  if (value === undefined || value.length === 0) return setOptions(part, withMarker(options, marker, target, 'part'));
  const last = value.at(-1)!;
  const items = [...value.slice(0, -1), setOptions(last, withMarker(last.providerOptions, marker, target, 'part'))];
  // On the part too: @ai-sdk/openai 2.x (ai 5) marks a list output's last part from the part's options, 3.x and later
  // from that part's own (and ignore the part's for a list output).
  return setOptions({ ...part, output: { type: 'content', value: items } as ToolResultOutput }, withMarker(options, marker, target, 'part'));
}

/** Whether a rendered tool_use input is the call's own (as the provider would send it: a JSON string parsed). */
function sameInput(original: unknown, rendered: unknown): boolean {
  // The same plain data has the same JSON: no stringify of every input per call. Anything else is judged by its JSON.
  if (typeof original !== 'string' && sameData(original, rendered)) return true;
  const text = typeof original === 'string' ? original : JSON.stringify(original);
  return text === JSON.stringify(rendered);
}

function assistantPart(b: ContentBlockParam, o: Originals, marker: CacheControlEphemeral | null | undefined, target: MarkerTarget): AssistantPart {
  switch (b.type) {
    case 'text':
      return setOptions({ type: 'text', text: b.text }, withMarker(undefined, marker, target, 'part'));
    case 'tool_use': {
      const original = o.calls.get(b.id);
      // A pruned or hidden input comes back as a note ({ hidden: "[pruned: …]" }): send what the engine rendered, not the original.
      const part: ToolCallPart =
        original && sameInput(original.input, b.input)
          ? original
          : { ...(original ?? { type: 'tool-call', toolCallId: b.id, toolName: b.name }), input: b.input };
      return setOptions(part, withMarker(part.providerOptions, marker, target, 'part'));
    }
    case 'thinking':
    case 'redacted_thinking': {
      const key = b.type === 'thinking' ? thinkingKey(b.signature, b.thinking) : `r:${b.data}`;
      const original = o.thinking.get(key);
      if (original) return setOptions(original, unmarked(original.providerOptions));
      const item = b.type === 'thinking' ? openaiReasoningOf(b.signature) : undefined;
      if (b.type === 'thinking' && item !== undefined) return { type: 'reasoning', text: b.thinking, providerOptions: { openai: { itemId: item } } };
      return b.type === 'thinking'
        ? { type: 'reasoning', text: b.thinking, providerOptions: { anthropic: { signature: b.signature } } }
        : { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: b.data } } };
    }
    default:
      throw new UnmappablePromptError(`a rendered assistant ${b.type} block`);
  }
}

/**
 * The message with its markers on messages (see {@link MarkerTarget}'s `onMessage`): a user or tool message is cut
 * after each marked part that is not its last (the provider joins consecutive user and tool messages into one, so the
 * blocks sent are the same), and each piece's last-part marker moves onto the piece.
 */
function markedOnMessages(m: PromptMessage): PromptMessage[] {
  if (m.role !== 'user' && m.role !== 'tool') return [markedOnMessage(m)];
  const pieces: PromptMessage[] = [];
  let start = 0;
  m.content.forEach((p, i) => {
    if (i < m.content.length - 1 && markerKeysIn((p as { providerOptions?: ProviderOptions }).providerOptions).length > 0) {
      pieces.push(markedOnMessage({ ...m, content: m.content.slice(start, i + 1) } as PromptMessage));
      start = i + 1;
    }
  });
  if (start === 0) return [markedOnMessage(m)];
  pieces.push(markedOnMessage({ ...m, content: m.content.slice(start) } as PromptMessage));
  return pieces;
}

/** The message with its last part's marker moved onto the message. */
function markedOnMessage(m: PromptMessage): PromptMessage {
  if (m.role === 'system') return m;
  const last = m.content.at(-1) as { providerOptions?: ProviderOptions } | undefined;
  const found = markerKeysIn(last?.providerOptions);
  if (last === undefined || found.length === 0) return m;
  const marker: Record<string, unknown> = {};
  for (const [provider, k] of found) marker[provider] = { [k]: (last.providerOptions![provider] as Record<string, unknown>)[k] };
  const content = [...m.content.slice(0, -1), setOptions(last, unmarked(last.providerOptions))];
  return { ...m, content, providerOptions: { ...m.providerOptions, ...marker } as ProviderOptions } as PromptMessage;
}

function tool(t: Tool, o: Originals, target: MarkerTarget): CallTool {
  const marker = t.cache_control;
  const original = o.tools.get(t.name);
  if (original?.type === 'function') return setOptions(original, withMarker(original.providerOptions, marker, target, 'tool'));
  const fresh: FunctionTool = {
    type: 'function',
    name: t.name,
    ...(t.description === undefined ? {} : { description: t.description }),
    inputSchema: t.input_schema as FunctionTool['inputSchema'],
  };
  return setOptions(fresh, withMarker(undefined, marker, target, 'tool'));
}

/**
 * Builds the call the provider will serialize into `rendered`: `rendered` is
 * what the engine returned for `toAnthropicPrompt(call)`; `before` maps tool
 * result ids to the content the engine was given, to tell an untouched result
 * from one replaced by a note.
 *
 * @example
 * const next = fromAnthropicPrompt(params, out, toAnthropicPrompt(params, 'generate'));
 * @param index the prompt's {@link PromptIndex} when the caller keeps one (built from `call` and `before` otherwise)
 */
export function fromAnthropicPrompt(
  call: CallOptions,
  rendered: AnthropicPrompt,
  before: AnthropicPrompt,
  target: MarkerTarget = ANTHROPIC_MARKER,
  index?: PromptIndex,
): CallOptions {
  const tools = new Map<string, CallTool>();
  for (const t of call.tools ?? []) tools.set(t.name, t);
  const o: Originals = { ...(index ?? indexPrompt(emptyIndex(), call.prompt, 0, before, 0)), tools };
  const given = o.given;
  const names = new Map<string, string>();
  for (const m of rendered.messages) {
    for (const b of m.content as ContentBlockParam[]) if (b.type === 'tool_use') names.set(b.id, b.name);
  }

  const prompt: Prompt = [];
  const system = typeof rendered.system === 'string' ? [{ type: 'text' as const, text: rendered.system }] : (rendered.system ?? []);
  (system as TextBlockParam[]).forEach((b) => {
    prompt.push(setOptions({ role: 'system', content: b.text }, withMarker(undefined, b.cache_control, target, 'system')));
  });
  for (const m of rendered.messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : (m.content as ContentBlockParam[]);
    if (m.role === 'assistant') {
      prompt.push({ role: 'assistant', content: blocks.map((b) => assistantPart(b, o, 'cache_control' in b ? b.cache_control : undefined, target)) });
      continue;
    }
    // One Anthropic user message = runs of tool results (a tool message) and of other blocks (a user message), in order.
    for (const b of blocks) {
      const marker = 'cache_control' in b ? b.cache_control : undefined;
      const last: PromptMessage | undefined = prompt.at(-1);
      if (b.type === 'tool_result') {
        const original = o.results.get(b.tool_use_id);
        const toolName = original?.toolName ?? names.get(b.tool_use_id) ?? 'unknown';
        const base: ToolResultPart = original
          ? { ...original, output: outputOf(b, original, given.get(b.tool_use_id)) }
          : { type: 'tool-result', toolCallId: b.tool_use_id, toolName, output: outputOf(b, undefined, undefined) };
        const part = target.listOutputs ? listed(base, marker, target) : setOptions(base, withMarker(base.providerOptions, marker, target, 'part'));
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
      } else if (b.type === 'text' || b.type === 'image' || b.type === 'document') {
        const original = b.type === 'text' ? undefined : o.files.get(mediaKey(b)!);
        if (b.type !== 'text' && !original) throw new UnmappablePromptError(`a rendered user ${b.type} block that no file part of the call made`);
        const part: UserPart = original
          ? setOptions(original, withMarker(original.providerOptions, marker, target, 'part'))
          : setOptions({ type: 'text', text: (b as TextBlockParam).text }, withMarker(undefined, marker, target, 'part'));
        if (last?.role === 'user') last.content.push(part);
        else prompt.push({ role: 'user', content: [part] });
      } else throw new UnmappablePromptError(`a rendered user ${b.type} block`);
    }
  }

  if (target.onMessage) prompt.splice(0, prompt.length, ...prompt.flatMap(markedOnMessages));
  const { providerOptions, tools: _tools, prompt: _prompt, ...rest } = call;
  const mappedTools = (rendered.tools ?? []).map((t) => tool(t, o, target));
  const callOptions = unmarked(providerOptions);
  return {
    ...rest,
    prompt,
    ...(mappedTools.length > 0 || call.tools !== undefined ? { tools: mappedTools } : {}),
    ...(callOptions === undefined ? {} : { providerOptions: callOptions }),
  };
}

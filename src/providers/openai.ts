/**
 * Rendered stream → OpenAI requests (Responses API and Chat Completions).
 *
 * The stream is already in cache order (tools, instructions, timeline, tail
 * last), so the mapping only has to keep it byte-stable: every block maps to
 * the same bytes whether or not it is a cache point this time (tool outputs
 * and assistant text always use the list form, never a string that would
 * turn into a list when marked), and nothing depends on the render's
 * position in the session.
 *
 * Cache points: on GPT-5.6 and later (profile `caching.kind === 'markers'`)
 * each cache point becomes a `prompt_cache_breakpoint` on the content part
 * its block produced, moved back to the nearest part that can carry one
 * (function calls and Responses assistant text cannot), and
 * `prompt_cache_options.mode` is `explicit`, so the provider's own implicit
 * marker (near the newest message, i.e. in our volatile tail) does not
 * write what the next request will not read. Before GPT-5.6 caching is
 * automatic: no markers, and `prompt_cache_key` (the conversation) keeps
 * a conversation's requests on the machines that hold its prefix.
 *
 * Thinking blocks are Anthropic's and are dropped (OpenAI's reasoning items
 * are not interchangeable).
 */
import { ProviderMappingError } from '../errors.js';
import type { Rendered, StreamBlock } from '../render/types.js';
import type {
  ChatMessage,
  ChatTextPart,
  ChatImagePart,
  OpenAIChatParams,
  OpenAIResponsesParams,
  ResponsesContentPart,
  ResponsesInputItem,
} from './openai-types.js';

/** What the caller adds to an OpenAI request. */
export interface OpenAIExtras {
  /** `prompt_cache_key`: the conversation id (routes a conversation's requests to the machines that hold its prefix). */
  readonly promptCacheKey?: string;
  /** `prompt_cache_retention`; default: not sent (the provider's default). */
  readonly retention?: 'in_memory' | '24h';
  /** Emit markers (default: when the model's profile caches with markers, i.e. GPT-5.6 and later). */
  readonly markers?: boolean;
  /** Any other request fields (max_output_tokens, reasoning, temperature, …), passed through. */
  readonly request?: Readonly<Record<string, unknown>>;
}

type Part = { type: string; prompt_cache_breakpoint?: { mode: 'explicit' } };

interface AnthropicTool {
  readonly name?: unknown;
  readonly description?: unknown;
  readonly input_schema?: unknown;
  readonly type?: unknown;
}

interface Block {
  readonly type: string;
  readonly [k: string]: unknown;
}

function fail(b: StreamBlock, why: string): never {
  throw new ProviderMappingError('openai', b.path, why);
}

function toolOf(b: StreamBlock): { name: string; description: string | null; parameters: Record<string, unknown> | null } {
  const t = b.param as AnthropicTool;
  if (typeof t.name !== 'string' || t.input_schema === undefined || (t.type !== undefined && t.type !== 'custom')) {
    fail(b, `tool "${String(t.name)}" is a provider-specific (server) tool; only custom tools with an input_schema map to OpenAI functions`);
  }
  return {
    name: t.name,
    description: typeof t.description === 'string' ? t.description : null,
    parameters: (t.input_schema as Record<string, unknown>) ?? null,
  };
}

function imageUrl(b: StreamBlock, block: Block): string {
  const src = block.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (src?.type === 'base64' && src.media_type && src.data) return `data:${src.media_type};base64,${src.data}`;
  if (src?.type === 'url' && src.url) return src.url;
  fail(b, `image source "${String(src?.type)}" has no OpenAI equivalent`);
}

/** Text and images of a tool result, in order. */
/**
 * The parts OpenAI receives for a tool result. OpenAI has no error flag, so an
 * error result leads with an '[error]' part; an empty one says '(no output)'.
 * The OpenAI peers of the simulator apply the same rule, so every run prices
 * the same bytes.
 */
export function openAIToolOutput<P extends { readonly type: string }>(parts: readonly P[], isError: boolean): (P | { type: 'text'; text: string })[] {
  const out: (P | { type: 'text'; text: string })[] = isError ? [{ type: 'text', text: '[error]' }, ...parts] : [...parts];
  return out.length > 0 ? out : [{ type: 'text', text: '(no output)' }];
}

/** A tool result's text and image parts, in order, as OpenAI receives them. */
function resultParts(b: StreamBlock, block: Block): Block[] {
  const c = block.content;
  const parts: Block[] =
    c === undefined
      ? []
      : typeof c === 'string'
        ? [{ type: 'text', text: c }]
        : (c as Block[]).map((p) =>
            p.type === 'text' || p.type === 'image' ? p : fail(b, `tool_result content of type "${p.type}" has no OpenAI equivalent`),
          );
  return openAIToolOutput(parts, block.is_error === true);
}

/** Whether to emit markers for this render. */
function wantsMarkers(rendered: Rendered, extras: OpenAIExtras): boolean {
  return extras.markers ?? (rendered.profile.provider === 'openai' && rendered.profile.caching?.kind === 'markers');
}

function cacheFields(
  rendered: Rendered,
  extras: OpenAIExtras,
  marked: boolean,
): Pick<OpenAIResponsesParams, 'prompt_cache_key' | 'prompt_cache_retention' | 'prompt_cache_options'> {
  return {
    ...(extras.promptCacheKey !== undefined ? { prompt_cache_key: extras.promptCacheKey } : {}),
    ...(extras.retention !== undefined ? { prompt_cache_retention: extras.retention } : {}),
    ...(marked && rendered.cachePoints.length > 0 ? { prompt_cache_options: { mode: 'explicit' as const } } : {}),
  };
}

/**
 * Puts a marker on the part each cache point's block produced, or on the
 * nearest earlier one that can carry it. `parts[i]` is what stream block i
 * produced (its last markerable part), undefined when it produced none.
 */
function placeMarkers(rendered: Rendered, parts: readonly (Part | undefined)[]): void {
  for (const point of rendered.cachePoints) {
    for (let i = Math.min(point.index, rendered.tailStart - 1); i >= 0; i--) {
      const part = parts[i];
      if (part) {
        part.prompt_cache_breakpoint = { mode: 'explicit' };
        break;
      }
    }
  }
}

/**
 * Builds `client.responses.create(...)` params from a render.
 *
 * @example
 * const r = render(state, { profile: OPENAI_MODELS['gpt-5.6-terra'] });
 * const params = toOpenAIResponses(r, { promptCacheKey: conversationId, request: { max_output_tokens: 4096 } });
 * const response = await openai.responses.create(params);
 */
export function toOpenAIResponses(rendered: Rendered, extras: OpenAIExtras = {}): OpenAIResponsesParams {
  const marked = wantsMarkers(rendered, extras);
  const tools: OpenAIResponsesParams['tools'] = [];
  const input: ResponsesInputItem[] = [];
  const parts: (Part | undefined)[] = [];
  let open: { role: 'user' | 'developer'; content: ResponsesContentPart[] } | null = null;

  const pushPart = (role: 'user' | 'developer', part: ResponsesContentPart): Part => {
    if (!open || open.role !== role) {
      open = { role, content: [] };
      input.push({ type: 'message', role, content: open.content });
    }
    open.content.push(part);
    return part;
  };

  rendered.stream.forEach((b, i) => {
    const block = b.param as Block;
    if (b.role === 'tools') {
      tools.push({ type: 'function', ...toolOf(b), strict: false });
      return;
    }
    if (b.role === 'system') {
      parts[i] = pushPart('developer', { type: 'input_text', text: String(block.text) });
      return;
    }
    switch (block.type) {
      case 'text':
        if (b.role === 'user') parts[i] = pushPart('user', { type: 'input_text', text: String(block.text) });
        else {
          open = null;
          // Responses takes earlier assistant text as a string (input_text is refused for assistant).
          input.push({ type: 'message', role: 'assistant', content: String(block.text) });
        }
        return;
      case 'image':
        parts[i] = pushPart('user', { type: 'input_image', detail: 'auto', image_url: imageUrl(b, block) });
        return;
      case 'tool_use':
        open = null;
        input.push({
          type: 'function_call',
          call_id: String(block.id),
          name: String(block.name),
          // Re-sent exactly as the model produced it (invariant 3): key order kept.
          arguments: JSON.stringify(block.input ?? {}),
        });
        return;
      case 'tool_result': {
        open = null;
        const output: ResponsesContentPart[] = resultParts(b, block).map((p) =>
          p.type === 'text' ? { type: 'input_text', text: String(p.text) } : { type: 'input_image', detail: 'auto', image_url: imageUrl(b, p) },
        );
        input.push({ type: 'function_call_output', call_id: String(block.tool_use_id), output });
        parts[i] = output.at(-1);
        return;
      }
      case 'thinking':
      case 'redacted_thinking':
        return;
      default:
        fail(b, `content block of type "${block.type}" has no OpenAI equivalent`);
    }
  });

  if (marked) placeMarkers(rendered, parts);
  return {
    model: rendered.model,
    ...(extras.request ?? {}),
    ...(tools.length > 0 ? { tools } : {}),
    input,
    ...cacheFields(rendered, extras, marked),
  };
}

/**
 * Builds `client.chat.completions.create(...)` params from a render.
 *
 * @example
 * const params = toOpenAIChat(render(state, { profile: OPENAI_MODELS['gpt-5.4'] }), { promptCacheKey: conversationId });
 * const completion = await openai.chat.completions.create(params);
 */
export function toOpenAIChat(rendered: Rendered, extras: OpenAIExtras = {}): OpenAIChatParams {
  const marked = wantsMarkers(rendered, extras);
  const tools: NonNullable<OpenAIChatParams['tools']> = [];
  const messages: ChatMessage[] = [];
  const parts: (Part | undefined)[] = [];
  let last: ChatMessage | null = null;

  const userPart = (role: 'user' | 'developer', part: ChatTextPart | ChatImagePart): Part => {
    if (!last || last.role !== role) {
      last = role === 'developer' ? { role, content: [] } : { role, content: [] };
      messages.push(last);
    }
    (last.content as (ChatTextPart | ChatImagePart)[]).push(part);
    return part;
  };
  const assistant = (): Extract<ChatMessage, { role: 'assistant' }> => {
    if (last?.role === 'assistant') return last;
    const m: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: null };
    messages.push(m);
    last = m;
    return m;
  };

  rendered.stream.forEach((b, i) => {
    const block = b.param as Block;
    if (b.role === 'tools') {
      const t = toolOf(b);
      tools.push({
        type: 'function',
        function: { name: t.name, ...(t.description !== null ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters } : {}) },
      });
      return;
    }
    if (b.role === 'system') {
      parts[i] = userPart('developer', { type: 'text', text: String(block.text) });
      return;
    }
    switch (block.type) {
      case 'text':
        if (b.role === 'user') parts[i] = userPart('user', { type: 'text', text: String(block.text) });
        else {
          const m = assistant();
          const part: ChatTextPart = { type: 'text', text: String(block.text) };
          // Text after a tool call starts a new assistant message: Chat Completions keeps text before calls.
          if (m.tool_calls) {
            const next: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: [part] };
            messages.push(next);
            last = next;
          } else (m.content ??= []).push(part);
          parts[i] = part;
        }
        return;
      case 'image':
        parts[i] = userPart('user', { type: 'image_url', image_url: { url: imageUrl(b, block) } });
        return;
      case 'tool_use': {
        const m = assistant();
        (m.tool_calls ??= []).push({
          id: String(block.id),
          type: 'function',
          function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
        });
        return;
      }
      case 'tool_result': {
        const content: ChatTextPart[] = resultParts(b, block).map((p) =>
          p.type === 'text' ? { type: 'text', text: String(p.text) } : fail(b, 'images in tool results have no Chat Completions equivalent'),
        );
        last = { role: 'tool', tool_call_id: String(block.tool_use_id), content };
        messages.push(last);
        parts[i] = content.at(-1);
        return;
      }
      case 'thinking':
      case 'redacted_thinking':
        return;
      default:
        fail(b, `content block of type "${block.type}" has no OpenAI equivalent`);
    }
  });

  if (marked) placeMarkers(rendered, parts);
  return {
    model: rendered.model,
    ...(extras.request ?? {}),
    ...(tools.length > 0 ? { tools } : {}),
    messages,
    ...cacheFields(rendered, extras, marked),
  };
}

/** Content blocks the timeline records for a model response (text and tool calls). */
export type ResponseBlocks = ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[];

function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    // The model produced arguments that are not JSON: keep them, so they are re-sent as they were.
    return { arguments: args };
  }
}

/**
 * A Responses API response as the blocks `appendResponse` records (message
 * text, function calls; reasoning items are not replayed across providers).
 *
 * @example
 * state = appendResponse(rendered.state, fromOpenAIResponse(await openai.responses.create(params)));
 */
export function fromOpenAIResponse(response: { readonly output: readonly unknown[] }): ResponseBlocks {
  const out: ResponseBlocks = [];
  for (const item of response.output) {
    const i = item as { type?: string; content?: { type?: string; text?: string }[]; call_id?: string; name?: string; arguments?: unknown };
    if (i.type === 'message') {
      for (const part of i.content ?? []) if (part.type === 'output_text' && part.text) out.push({ type: 'text', text: part.text });
    } else if (i.type === 'function_call') {
      out.push({ type: 'tool_use', id: String(i.call_id), name: String(i.name), input: parsedArguments(i.arguments) });
    }
  }
  return out;
}

/**
 * A Chat Completions response's first choice as the blocks `appendResponse` records.
 *
 * @example
 * state = appendResponse(rendered.state, fromOpenAIChatCompletion(await openai.chat.completions.create(params)));
 */
export function fromOpenAIChatCompletion(completion: { readonly choices: readonly unknown[] }): ResponseBlocks {
  const m = (
    completion.choices[0] as { message?: { content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] } } | undefined
  )?.message;
  const out: ResponseBlocks = [];
  if (m?.content) out.push({ type: 'text', text: m.content });
  for (const c of m?.tool_calls ?? []) out.push({ type: 'tool_use', id: c.id, name: c.function.name, input: parsedArguments(c.function.arguments) });
  return out;
}

/**
 * Other providers' requests → the shape the cache simulator reads (tools,
 * system, messages of content blocks, markers as `cache_control`), so one
 * simulator prices every provider under that provider's rules (its model
 * profile's `caching`, TTLs and prices). Used by `simulate --provider` and by
 * the fake server's OpenAI and Converse routes.
 *
 * The conversion keeps identity, not meaning: two requests that share a
 * prefix on the provider share it here, block for block. Items with no
 * Anthropic counterpart (images, reasoning items, unknown item types) become
 * text blocks holding their canonical JSON, which is enough for identity and
 * close enough for token counts.
 *
 * Markers:
 * - OpenAI GPT-5.6 (`caching.kind === 'markers'`): `prompt_cache_breakpoint`
 *   → a marker on that block; the implicit marker (unless
 *   `prompt_cache_options.mode === 'explicit'`) → the top-level marker (on
 *   the newest block), with the latest 3 explicit ones (4 in explicit mode),
 *   as the provider writes no more.
 * - OpenAI before GPT-5.6 (automatic): no markers; `prompt_cache_retention:
 *   '24h'` → a top-level `1h` marker, the retention class the automatic
 *   simulator reads.
 * - Bedrock: `{ cachePoint }` → a marker on the block before it.
 */
import type { ModelProfile } from '../models/profiles.js';
import { base64Of } from '../internal/base64.js';
import type { SimParams } from './types.js';

type Json = Record<string, unknown>;
type Marker = { type: 'ephemeral'; ttl?: '5m' | '1h' };
interface SimBlock {
  role: 'user' | 'assistant';
  block: Json;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function opaque(v: unknown): Json {
  return { type: 'text', text: JSON.stringify(v) ?? 'null' };
}

function textOf(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

/** Folds consecutive blocks of one role into messages. */
function messagesOf(blocks: readonly SimBlock[]): SimParams['messages'] {
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  for (const b of blocks) {
    const last = out.at(-1);
    if (last && last.role === b.role) last.content.push(b.block);
    else out.push({ role: b.role, content: [b.block] });
  }
  return out as unknown as SimParams['messages'];
}

/** Keeps the markers the provider writes: the latest `keep` of them. */
function keepLatest(marked: Json[], keep: number): void {
  for (const b of marked.slice(0, Math.max(0, marked.length - keep))) delete b.cache_control;
}

function openAIMarkers(profile: ModelProfile, p: Json, marked: Json[]): Partial<SimParams> {
  const rules = profile.caching;
  if (rules?.kind === 'markers') {
    const explicitMode = isObj(p.prompt_cache_options) && p.prompt_cache_options.mode === 'explicit';
    keepLatest(marked, explicitMode || !rules.implicit ? rules.maxMarkers : rules.maxMarkers - 1);
    return explicitMode || !rules.implicit ? {} : ({ cache_control: { type: 'ephemeral' } } as Partial<SimParams>);
  }
  for (const b of marked) delete b.cache_control;
  return p.prompt_cache_retention === '24h' ? ({ cache_control: { type: 'ephemeral', ttl: '1h' } } as Partial<SimParams>) : {};
}

function markerOf(part: unknown): Marker | undefined {
  return isObj(part) && isObj(part.prompt_cache_breakpoint) ? { type: 'ephemeral' } : undefined;
}

function withMarker(block: Json, marker: Marker | undefined, marked: Json[]): Json {
  if (!marker) return block;
  const b = { ...block, cache_control: marker };
  marked.push(b);
  return b;
}

function openAIParts(content: unknown, marked: Json[]): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [opaque(content)];
  return content.map((part) => {
    const text = isObj(part) && typeof part.text === 'string' ? { type: 'text', text: part.text } : opaque(part);
    return withMarker(text, markerOf(part), marked);
  });
}

function unmarked(parts: Json[]): Json[] {
  return parts.map(({ cache_control: _, ...b }) => b);
}

function openAITools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => {
    const fn = isObj(t) && isObj(t.function) ? t.function : t;
    if (isObj(fn) && typeof fn.name === 'string') {
      return { name: fn.name, description: textOf(fn.description ?? ''), input_schema: isObj(fn.parameters) ? fn.parameters : { type: 'object' } };
    }
    return { name: 'opaque', description: JSON.stringify(t), input_schema: { type: 'object' } };
  });
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return { arguments: args };
  }
}

function openAISim(p: Json, profile: ModelProfile, system: Json[], blocks: readonly SimBlock[], marked: Json[]): SimParams {
  return {
    model: String(p.model),
    max_tokens: 1,
    tools: openAITools(p.tools),
    system,
    messages: messagesOf(blocks),
    ...openAIMarkers(profile, p, marked),
  } as unknown as SimParams;
}

/**
 * A Responses API request (`client.responses.create` params) as the simulator
 * reads it, for an OpenAI model profile.
 */
export function fromOpenAIResponses(params: unknown, profile: ModelProfile): SimParams {
  const p = isObj(params) ? params : {};
  const marked: Json[] = [];
  const system: Json[] = typeof p.instructions === 'string' ? [{ type: 'text', text: p.instructions }] : [];
  const blocks: SimBlock[] = [];
  const items = typeof p.input === 'string' ? [{ role: 'user', content: p.input }] : Array.isArray(p.input) ? p.input : [];
  for (const item of items) {
    if (!isObj(item)) continue;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role === 'assistant' ? 'assistant' : 'user';
      const parts = openAIParts(item.content, marked);
      if ((item.role === 'system' || item.role === 'developer') && blocks.length === 0) system.push(...parts);
      else for (const block of parts) blocks.push({ role, block });
    } else if (type === 'function_call') {
      blocks.push({ role: 'assistant', block: { type: 'tool_use', id: textOf(item.call_id), name: textOf(item.name), input: parseArgs(item.arguments) } });
    } else if (type === 'function_call_output') {
      // A marker on the output's last part marks the whole result (nested parts carry none).
      const content = typeof item.output === 'string' ? item.output : unmarked(openAIParts(item.output, []));
      const marker = Array.isArray(item.output) ? markerOf(item.output.at(-1)) : undefined;
      const block = { type: 'tool_result', tool_use_id: textOf(item.call_id), content };
      blocks.push({ role: 'user', block: marker ? withMarker(block, marker, marked) : block });
    } else {
      blocks.push({ role: 'assistant', block: opaque(item) });
    }
  }
  return openAISim(p, profile, system, blocks, marked);
}

/** A Chat Completions request (`client.chat.completions.create` params) as the simulator reads it. */
export function fromOpenAIChat(params: unknown, profile: ModelProfile): SimParams {
  const p = isObj(params) ? params : {};
  const marked: Json[] = [];
  const system: Json[] = [];
  const blocks: SimBlock[] = [];
  for (const m of Array.isArray(p.messages) ? p.messages : []) {
    if (!isObj(m)) continue;
    if ((m.role === 'system' || m.role === 'developer') && blocks.length === 0) {
      system.push(...openAIParts(m.content, marked));
    } else if (m.role === 'assistant') {
      if (m.content !== null && m.content !== undefined) for (const block of openAIParts(m.content, marked)) blocks.push({ role: 'assistant', block });
      for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const fn = isObj(c) && isObj(c.function) ? c.function : {};
        blocks.push({
          role: 'assistant',
          block: { type: 'tool_use', id: textOf(isObj(c) ? c.id : ''), name: textOf(fn.name), input: parseArgs(fn.arguments) },
        });
      }
    } else if (m.role === 'tool') {
      const marker = Array.isArray(m.content) ? markerOf(m.content.at(-1)) : undefined;
      const block = { type: 'tool_result', tool_use_id: textOf(m.tool_call_id), content: unmarked(openAIParts(m.content, [])) };
      blocks.push({ role: 'user', block: withMarker(block, marker, marked) });
    } else {
      for (const block of openAIParts(m.content, marked)) blocks.push({ role: 'user', block });
    }
  }
  return openAISim(p, profile, system, blocks, marked);
}

/** Bytes as base64: a `Uint8Array` in process, already a base64 string on the wire (the AWS SDK's JSON). */
function blobOf(v: unknown): string {
  return typeof v === 'string' || v instanceof Uint8Array ? base64Of(v) : textOf(v);
}

/** Converse blocks → simulator blocks; a `cachePoint` marks the block before it. */
function converseBlocks(content: unknown, role: 'user' | 'assistant' | 'system'): Json[] {
  const out: Json[] = [];
  for (const c of Array.isArray(content) ? content : []) {
    if (!isObj(c)) continue;
    if (isObj(c.cachePoint)) {
      const prev = out.at(-1);
      if (prev) prev.cache_control = c.cachePoint.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
      else out.push({ type: 'text', text: '', cache_control: { type: 'ephemeral' } }); // a point on nothing: refused like an empty block
    } else if (typeof c.text === 'string') out.push({ type: 'text', text: c.text });
    else if (isObj(c.toolUse)) out.push({ type: 'tool_use', id: textOf(c.toolUse.toolUseId), name: textOf(c.toolUse.name), input: c.toolUse.input ?? {} });
    else if (isObj(c.toolResult)) {
      const parts = converseBlocks(c.toolResult.content, 'user');
      out.push({
        type: 'tool_result',
        tool_use_id: textOf(c.toolResult.toolUseId),
        // One text block reads as the string form (Converse has no string form; the bytes the model sees are the same).
        content: parts.length === 1 && parts[0]!.type === 'text' && parts[0]!.cache_control === undefined ? parts[0]!.text : parts,
        ...(c.toolResult.status === 'error' ? { is_error: true } : {}),
      });
    } else if (isObj(c.reasoningContent)) {
      const r = c.reasoningContent;
      out.push(
        isObj(r.reasoningText)
          ? { type: 'thinking', thinking: textOf(r.reasoningText.text), signature: textOf(r.reasoningText.signature ?? '') }
          : { type: 'redacted_thinking', data: blobOf(r.redactedContent) },
      );
    } else out.push(opaque(c));
    void role;
  }
  return out;
}

/** A Bedrock Converse request (`ConverseCommand` input) as the simulator reads it. */
export function fromBedrockConverse(input: unknown, model?: string): SimParams {
  const p = isObj(input) ? input : {};
  const toolBlocks: Json[] = [];
  const toolConfig = isObj(p.toolConfig) ? p.toolConfig : {};
  for (const t of Array.isArray(toolConfig.tools) ? toolConfig.tools : []) {
    if (!isObj(t)) continue;
    if (isObj(t.cachePoint)) {
      const prev = toolBlocks.at(-1);
      if (prev) prev.cache_control = t.cachePoint.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
    } else if (isObj(t.toolSpec)) {
      const spec = t.toolSpec;
      const schema = isObj(spec.inputSchema) && isObj(spec.inputSchema.json) ? spec.inputSchema.json : { type: 'object' };
      toolBlocks.push({ name: textOf(spec.name), ...(typeof spec.description === 'string' ? { description: spec.description } : {}), input_schema: schema });
    }
  }
  const messages = (Array.isArray(p.messages) ? p.messages : []).filter(isObj).map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: converseBlocks(m.content, m.role === 'assistant' ? 'assistant' : 'user'),
  }));
  return {
    model: model ?? textOf(p.modelId),
    max_tokens: 1,
    tools: toolBlocks,
    system: converseBlocks(p.system, 'system'),
    messages,
  } as unknown as SimParams;
}

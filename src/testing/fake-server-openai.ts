/**
 * The fake server's OpenAI routes (`POST /v1/responses`, `POST
 * /v1/chat/completions`) and Bedrock's Converse route (`POST
 * /model/{modelId}/converse`), so the real `openai` SDK and the AWS SDK can be
 * pointed at it.
 *
 * Each request is validated the way that API refuses requests (tool calls
 * answered, known model), converted to what the cache simulator reads
 * (sim/from-provider.ts) and priced under that provider's rules; the answer
 * comes from the same script queue as `/v1/messages`, mapped to that API's
 * response shape, with its usage fields (OpenAI: `cached_tokens` and
 * `cache_write_tokens` inside an input total; Converse: `cacheReadInputTokens`
 * and `cacheWriteInputTokens` beside `inputTokens`). Responses and Chat
 * Completions stream SSE when `stream: true`; `POST
 * /model/{modelId}/converse-stream` answers the same response as Converse's
 * events in AWS's event-stream framing (fake-server-eventstream.ts).
 */
import type { ContentBlock, MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { UnknownModelError } from '../errors.js';
import type { ModelProfile } from '../models/profiles.js';
import { providerProfile } from '../providers/registry.js';
import { fromBedrockConverse, fromOpenAIChat, fromOpenAIResponses } from '../sim/from-provider.js';
import type { SimParams } from '../sim/types.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import { HttpError } from './fake-server-http.js';
import type { MessageResponder } from './fake-server-messages.js';
import type { UsageModel } from './fake-server-usage.js';
import { manualLoopThinkingIssue } from '../internal/loop-thinking.js';
import type { Message } from '../providers/anthropic-types.js';
import { LoopThinkingLedger, type LoopThinking, type LoopThinkingRule } from './fake-server-loop.js';
import { checkConverseDocuments } from './fake-server-converse-documents.js';
import { converseStreamEvents, encodeConverseEvent } from './fake-server-eventstream.js';

/** What a route answers: a JSON body, SSE frames (or event-stream messages) when streaming, and the simulator's explanation. */
export interface RouteAnswer {
  readonly body: unknown;
  readonly frames?: readonly string[];
  /** AWS event-stream messages (ConverseStream), sent as `application/vnd.amazon.eventstream`. */
  readonly eventStream?: readonly Uint8Array[];
  readonly explain?: unknown;
  /** What the request did with its open tool loop's thinking (Converse). */
  readonly loopThinking?: LoopThinking;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An OpenAI-shaped 400. */
function invalid(message: string, param: string | null = null): HttpError {
  return new HttpError(400, 'invalid_request_error', message, {}, { param, code: null });
}

function requireModel(body: Json): string {
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid("Missing required parameter: 'model'.", 'model');
  return body.model;
}

function profileOr404(provider: 'openai' | 'bedrock', model: string): ModelProfile {
  try {
    return providerProfile(provider, model);
  } catch (e) {
    if (e instanceof UnknownModelError) {
      throw provider === 'openai'
        ? new HttpError(
            404,
            'invalid_request_error',
            `The model \`${model}\` does not exist or you do not have access to it.`,
            {},
            { param: null, code: 'model_not_found' },
          )
        : new HttpError(400, 'ValidationException', `The provided model identifier is invalid: ${model}`);
    }
    throw e;
  }
}

/** Every function call answered by exactly one output, and no output without its call (Responses). */
function checkResponsesPairs(input: unknown): void {
  if (typeof input === 'string') return;
  if (!Array.isArray(input)) throw invalid("Invalid type for 'input': expected a string or an array of input items.", 'input');
  const calls = new Set<string>();
  const answered = new Set<string>();
  input.forEach((item, i) => {
    if (!isObj(item)) throw invalid(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`);
    if (item.type === 'function_call') calls.add(String(item.call_id));
    if (item.type === 'function_call_output') {
      const id = String(item.call_id);
      if (!calls.has(id)) throw invalid(`No tool call found for function call output with call_id ${id}.`, `input[${i}]`);
      answered.add(id);
    }
    if (item.type === 'message' || (item.type === undefined && 'role' in item)) {
      const content = item.content;
      if (Array.isArray(content)) {
        content.forEach((part, j) => {
          if (isObj(part) && part.type === 'input_text' && typeof part.text === 'string' && part.text.length === 0 && isObj(part.prompt_cache_breakpoint)) {
            throw invalid(`A marker cannot close an empty text part (input[${i}].content[${j}]).`, `input[${i}].content[${j}]`);
          }
        });
      }
    }
  });
  for (const id of calls)
    if (!answered.has(id) && input.at(-1) !== undefined && !isLastCall(input, id)) throw invalid(`No tool output found for function call ${id}.`, 'input');
}

/** A call may stay unanswered only at the very end (the model's newest turn is being continued). */
function isLastCall(input: readonly unknown[], id: string): boolean {
  const i = input.findIndex((x) => isObj(x) && x.type === 'function_call' && String(x.call_id) === id);
  return input.slice(i + 1).every((x) => isObj(x) && x.type === 'function_call');
}

/** Every assistant tool call answered right after it by tool messages (Chat Completions). */
function checkChatPairs(messages: unknown): void {
  if (!Array.isArray(messages) || messages.length === 0) throw invalid("Invalid 'messages': empty array. Expected an array with minimum length 1.", 'messages');
  messages.forEach((m, i) => {
    if (!isObj(m)) throw invalid(`Invalid type for 'messages[${i}]'.`, `messages[${i}]`);
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const ids = m.tool_calls.map((c) => String(isObj(c) ? c.id : ''));
      const next = messages.slice(i + 1, i + 1 + ids.length);
      const answered = next.filter((x) => isObj(x) && x.role === 'tool').map((x) => String((x as Json).tool_call_id));
      for (const id of ids) {
        if (!answered.includes(id)) {
          throw invalid(
            `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${id}`,
            `messages.[${i + 1}].role`,
          );
        }
      }
    }
    if (m.role === 'tool') {
      const prev = messages
        .slice(0, i)
        .reverse()
        .find((x) => isObj(x) && x.role !== 'tool') as Json | undefined;
      const ids = Array.isArray(prev?.tool_calls) ? prev.tool_calls.map((c) => String(isObj(c) ? c.id : '')) : [];
      if (!ids.includes(String(m.tool_call_id))) {
        throw invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
      }
    }
  });
}

function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}

function calls(content: readonly ContentBlock[]): { id: string; name: string; arguments: string }[] {
  return content
    .filter((b) => b.type === 'tool_use')
    .map((b) => {
      const t = b as { id: string; name: string; input: unknown };
      return { id: t.id, name: t.name, arguments: JSON.stringify(t.input ?? {}) };
    });
}

function sse(event: string | null, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Serves the OpenAI and Converse routes from the shared script, each provider priced by its own simulator. */
export class ProviderRoutes {
  #responses = 0;
  #created = 1_764_000_000;
  /** Output items of the responses stored (`store` not false, the API's default), by id: what `item_reference` reads. */
  readonly #stored = new Map<string, Json>();

  constructor(
    private readonly script: MessageResponder,
    private readonly openaiUsage: UsageModel,
    private readonly bedrockUsage: UsageModel,
    private readonly tokens: BlockTokenCache,
    /** Thinking left out of an open tool loop on the Converse route (fake-server-loop.ts). */
    private readonly loopRule: LoopThinkingRule = 'lenient',
  ) {}

  /** The thinking of the Converse responses given with a tool_use (Claude's reasoning on Bedrock: the Messages rules). */
  readonly #loops = new LoopThinkingLedger();

  #price(model: UsageModel, params: SimParams, at: number): { read: number; write: number; uncached: number; explain?: unknown } {
    const outcome = model.send(params as MessageCreateParamsBase, at);
    if (outcome.rejected) throw invalid(outcome.rejected.message);
    const u = outcome.usage;
    return {
      read: u.cache_read_input_tokens,
      write: u.cache_creation_input_tokens,
      uncached: u.input_tokens,
      ...(outcome.explain === undefined ? {} : { explain: outcome.explain }),
    };
  }

  #output(content: readonly ContentBlock[]): number {
    return Math.max(
      1,
      content.reduce((n, b) => n + this.tokens.tokens(b), 0),
    );
  }

  /**
   * The input with every `{ type: 'item_reference', id }` read as the stored item it names (openai 6.49's
   * `ResponseInputItem.ItemReference`: "An internal identifier for an item to reference"); an id this server never
   * stored is refused (the wording is ours: no source gives the API's).
   */
  #resolved(input: unknown): unknown {
    if (!Array.isArray(input) || !input.some((i) => isObj(i) && i.type === 'item_reference')) return input;
    return input.map((item, i) => {
      if (!isObj(item) || item.type !== 'item_reference') return item;
      const stored = this.#stored.get(String(item.id));
      if (!stored) throw invalid(`Item with id '${String(item.id)}' not found.`, `input[${i}]`);
      return stored;
    });
  }

  /** `POST /v1/responses`. */
  responses(request: unknown, at: number): RouteAnswer {
    if (!isObj(request)) throw invalid('The request body must be a JSON object.');
    const body: Json = { ...request, input: this.#resolved(request.input) };
    const model = requireModel(body);
    if (body.input === undefined) throw invalid("Missing required parameter: 'input'.", 'input');
    checkResponsesPairs(body.input);
    const profile = profileOr404('openai', model);
    const params = fromOpenAIResponses(body, profile);
    const usage = this.#price(this.openaiUsage, params, at);
    const scripted = this.script.take(params as MessageCreateParamsBase);
    const n = ++this.#responses;
    const output: Json[] = [];
    // A scripted thinking block is the reasoning item a reasoning model (GPT-5 family) puts before its answer, summary
    // and all (openai 6.49's ResponseReasoningItem; its encrypted_content only when `include` asks for it).
    scripted.content.forEach((b, k) => {
      if (b.type !== 'thinking') return;
      const thinking = (b as { thinking: string }).thinking;
      const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
      output.push({
        type: 'reasoning',
        id: `rs_fake_${n}_${k}`,
        summary: thinking ? [{ type: 'summary_text', text: thinking }] : [],
        ...(encrypted ? { encrypted_content: `enc:${Buffer.from(thinking).toString('base64')}` } : {}),
      });
    });
    const text = textOf(scripted.content);
    if (text)
      output.push({
        type: 'message',
        id: `msg_fake_${n}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      });
    for (const c of calls(scripted.content))
      output.push({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: c.arguments, status: 'completed' });
    if (body.store !== false) for (const item of output) this.#stored.set(String(item.id), item);
    const outputTokens = scripted.output_tokens ?? this.#output(scripted.content);
    const input = usage.read + usage.write + usage.uncached;
    const response = {
      id: `resp_fake_${n}`,
      object: 'response',
      created_at: this.#created + n,
      status: 'completed',
      model,
      output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: Array.isArray(body.tools) ? body.tools : [],
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      metadata: {},
      temperature: null,
      top_p: null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: usage.read, cache_write_tokens: usage.write },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + outputTokens,
      },
    };
    if (body.stream !== true) return { body: response, ...(usage.explain === undefined ? {} : { explain: usage.explain }) };
    let seq = 0;
    const frames: string[] = [
      sse('response.created', { type: 'response.created', sequence_number: seq++, response: { ...response, status: 'in_progress', output: [], usage: null } }),
    ];
    output.forEach((item, output_index) => {
      frames.push(
        sse('response.output_item.added', {
          type: 'response.output_item.added',
          sequence_number: seq++,
          output_index,
          item: { ...item, ...(item.type === 'reasoning' ? { summary: [] } : {}), status: 'in_progress' },
        }),
      );
      if (item.type === 'reasoning') {
        (item.summary as { text: string }[]).forEach((part, summary_index) => {
          const at = { item_id: item.id, output_index, summary_index };
          frames.push(
            sse('response.reasoning_summary_part.added', {
              type: 'response.reasoning_summary_part.added',
              sequence_number: seq++,
              ...at,
              part: { type: 'summary_text', text: '' },
            }),
          );
          frames.push(
            sse('response.reasoning_summary_text.delta', { type: 'response.reasoning_summary_text.delta', sequence_number: seq++, ...at, delta: part.text }),
          );
          frames.push(
            sse('response.reasoning_summary_text.done', { type: 'response.reasoning_summary_text.done', sequence_number: seq++, ...at, text: part.text }),
          );
          frames.push(
            sse('response.reasoning_summary_part.done', {
              type: 'response.reasoning_summary_part.done',
              sequence_number: seq++,
              ...at,
              part: { type: 'summary_text', text: part.text },
            }),
          );
        });
      } else if (item.type === 'message') {
        const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        frames.push(
          sse('response.content_part.added', {
            type: 'response.content_part.added',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            content_index: 0,
            part,
          }),
        );
        frames.push(
          sse('response.output_text.delta', {
            type: 'response.output_text.delta',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            content_index: 0,
            delta: text,
            logprobs: [],
          }),
        );
        frames.push(
          sse('response.output_text.done', {
            type: 'response.output_text.done',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            content_index: 0,
            text,
            logprobs: [],
          }),
        );
        frames.push(
          sse('response.content_part.done', {
            type: 'response.content_part.done',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            content_index: 0,
            part: { ...part, text },
          }),
        );
      } else {
        frames.push(
          sse('response.function_call_arguments.delta', {
            type: 'response.function_call_arguments.delta',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            delta: item.arguments,
          }),
        );
        frames.push(
          sse('response.function_call_arguments.done', {
            type: 'response.function_call_arguments.done',
            sequence_number: seq++,
            item_id: item.id,
            output_index,
            name: item.name,
            arguments: item.arguments,
          }),
        );
      }
      frames.push(sse('response.output_item.done', { type: 'response.output_item.done', sequence_number: seq++, output_index, item }));
    });
    frames.push(sse('response.completed', { type: 'response.completed', sequence_number: seq++, response }));
    return { body: response, frames, ...(usage.explain === undefined ? {} : { explain: usage.explain }) };
  }

  /** `POST /v1/chat/completions`. */
  chat(body: unknown, at: number): RouteAnswer {
    if (!isObj(body)) throw invalid('The request body must be a JSON object.');
    const model = requireModel(body);
    checkChatPairs(body.messages);
    const profile = profileOr404('openai', model);
    const params = fromOpenAIChat(body, profile);
    const usage = this.#price(this.openaiUsage, params, at);
    const scripted = this.script.take(params as MessageCreateParamsBase);
    const n = ++this.#responses;
    const text = textOf(scripted.content);
    const toolCalls = calls(scripted.content).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const outputTokens = scripted.output_tokens ?? this.#output(scripted.content);
    const prompt = usage.read + usage.write + usage.uncached;
    const usageBody = {
      prompt_tokens: prompt,
      completion_tokens: outputTokens,
      total_tokens: prompt + outputTokens,
      prompt_tokens_details: { cached_tokens: usage.read, cache_write_tokens: usage.write },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const message = { role: 'assistant', content: text || null, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    const completion = {
      id: `chatcmpl-fake-${n}`,
      object: 'chat.completion',
      created: this.#created + n,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: usageBody,
    };
    const explain = usage.explain === undefined ? {} : { explain: usage.explain };
    if (body.stream !== true) return { body: completion, ...explain };
    const chunk = (delta: Json, finish_reason: string | null, extra: Json = {}): string =>
      sse(null, {
        id: completion.id,
        object: 'chat.completion.chunk',
        created: completion.created,
        model,
        choices: [{ index: 0, delta, finish_reason, logprobs: null }],
        ...extra,
      });
    const frames = [chunk({ role: 'assistant', content: '' }, null)];
    if (text) frames.push(chunk({ content: text }, null));
    toolCalls.forEach((c, index) => frames.push(chunk({ tool_calls: [{ index, ...c }] }, null)));
    frames.push(chunk({}, finish));
    const includeUsage = isObj(body.stream_options) && body.stream_options.include_usage === true;
    if (includeUsage)
      frames.push(sse(null, { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model, choices: [], usage: usageBody }));
    frames.push(sse(null, '[DONE]'));
    return { body: completion, frames, ...explain };
  }

  /** `POST /model/{modelId}/converse`, or `…/converse-stream` when `stream` (the same response, as its events). */
  converse(modelId: string, body: unknown, at: number, stream = false): RouteAnswer {
    if (!isObj(body)) throw new HttpError(400, 'ValidationException', 'The request body must be a JSON object.');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      throw new HttpError(400, 'ValidationException', 'A conversation must start with a user message.');
    profileOr404('bedrock', modelId);
    checkConverseDocuments(body.messages);
    const params = fromBedrockConverse(body, modelId);
    // Claude's thinking on Converse (additionalModelRequestFields.thinking): the Messages API's rules on an open loop.
    const fields = isObj(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
    const manual = manualLoopThinkingIssue(fields.thinking, params.messages);
    if (manual) throw new HttpError(400, 'ValidationException', manual.message);
    let loopThinking: LoopThinking | undefined;
    try {
      loopThinking = this.#loops.check(params as MessageCreateParamsBase, this.loopRule);
    } catch (e) {
      if (e instanceof HttpError) throw new HttpError(400, 'ValidationException', e.message);
      throw e;
    }
    let priced: { read: number; write: number; uncached: number; explain?: unknown };
    try {
      priced = this.#price(this.bedrockUsage, params, at);
    } catch (e) {
      if (e instanceof HttpError) throw new HttpError(400, 'ValidationException', e.message);
      throw e;
    }
    const scripted = this.script.take(params as MessageCreateParamsBase);
    const content = scripted.content.flatMap((b): Json[] => {
      if (b.type === 'text') return [{ text: (b as { text: string }).text }];
      if (b.type === 'tool_use') {
        const t = b as { id: string; name: string; input: unknown };
        return [{ toolUse: { toolUseId: t.id, name: t.name, input: t.input ?? {} } }];
      }
      // Claude's reasoning, as Converse returns it (a redacted block's data as the bytes' base64).
      if (b.type === 'thinking') {
        const t = b as { thinking: string; signature?: string };
        return [{ reasoningContent: { reasoningText: { text: t.thinking, ...(t.signature === undefined ? {} : { signature: t.signature }) } } }];
      }
      if (b.type === 'redacted_thinking')
        return [{ reasoningContent: { redactedContent: Buffer.from((b as { data: string }).data, 'utf8').toString('base64') } }];
      return [];
    });
    this.#loops.remember({ content: fromBedrockConverse({ messages: [{ role: 'assistant', content }] }).messages[0]!.content } as unknown as Message);
    const outputTokens = scripted.output_tokens ?? this.#output(scripted.content);
    const stopReason = scripted.stop_reason === 'tool_use' ? 'tool_use' : scripted.stop_reason === 'max_tokens' ? 'max_tokens' : 'end_turn';
    const response = {
      output: { message: { role: 'assistant', content } },
      stopReason,
      usage: {
        inputTokens: priced.uncached,
        outputTokens,
        totalTokens: priced.uncached + priced.read + priced.write + outputTokens,
        cacheReadInputTokens: priced.read,
        cacheWriteInputTokens: priced.write,
      },
      metrics: { latencyMs: 1 },
    };
    return {
      body: response,
      ...(stream ? { eventStream: converseStreamEvents(response).map(encodeConverseEvent) } : {}),
      ...(priced.explain === undefined ? {} : { explain: priced.explain }),
      ...(loopThinking === undefined ? {} : { loopThinking }),
    };
  }
}

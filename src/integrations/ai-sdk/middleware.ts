/**
 * `cachepointMiddleware`: cachepoint as a language-model middleware of the
 * Vercel AI SDK (`wrapLanguageModel({ model, middleware })`).
 *
 * Every model call of a `generateText` / `streamText` loop goes through the
 * drop-in path: the call's prompt is mapped to Anthropic params, `prepare`
 * renders them against the conversation's stored state (cache points, sticky
 * prune/hide/compact decisions, the volatile tail last), and the rendered
 * request is mapped back onto the call, with the provider's cache marker
 * (`providerOptions.anthropic.cacheControl`; OpenAI's `promptCacheBreakpoint`
 * and `promptCacheKey`; Bedrock Converse's `cachePoint`: see providers.ts)
 * on exactly the parts the cache points fell on. After the response, the
 * provider's cache usage goes back to the conversation (`recordUsage`), for
 * generate and stream alike; a stream keeps streaming.
 *
 * It never breaks a call: an unsupported provider, a prompt shape the mapping
 * does not cover, a missing conversation id or a failing store lets the call
 * through unchanged, with one warning.
 */
import type { ContentBlockParam, MessageParam, Tool } from '../../providers/anthropic-types.js';
import { conversationStoreProblem, prepare, recordUsageOrThrow, type PrepareOptions, type PreparePlan } from '../../conversation/prepare.js';
import type { ConversationStore } from '../../conversation/types.js';
import { recallTool } from '../../recall/recall-tool.js';
import type { TimelineState } from '../../timeline/types.js';
import { resolveProfile } from '../../models/profiles.js';
import { callerMarkersOutsidePrompt, emptyIndex, firstMarkedMessage, fromAnthropicPrompt, indexPrompt, type PromptIndex } from './from-anthropic.js';
import { engineModelId, markerTarget, providerFamily, renderOptionsFor, withCallOptions, withoutGatewayCaching, type ProviderFamily } from './providers.js';
import { mapPrompt, UnmappablePromptError, type AnthropicPrompt, type MappedPrompt } from './to-anthropic.js';
import { streamsEagerTools } from './eager-tools.js';
import type { CallOptions, CallWarning, LanguageModelMiddleware, ProviderOptions, StreamPart, WrappedModel } from './types.js';
import { reportedUsage } from './usage.js';
import { optionKeys, refuseUnknownKeys } from '../../internal/option-keys.js';
import { InvalidOptionError } from '../../errors.js';
import { sameData } from '../../internal/same-data.js';
import { resolveRenderOptions } from '../../render/options.js';
import { hiddenSetOf } from '../../timeline/hidden.js';

// TYPES

/** Why the middleware did less than it could (each is reported once per call, and to `onWarning`). */
export type CachepointWarningCode =
  /** The wrapped model is none of the served providers (Anthropic Messages and its Bedrock / Vertex variants, OpenAI, Bedrock Converse): the call went through unchanged. */
  | 'unsupported_provider'
  /** The prompt has a shape the mapping does not cover: the call went through unchanged. */
  | 'unmappable_prompt'
  /** No conversation id for this call: the call went through unchanged. */
  | 'no_conversation_id'
  /** `prepare` failed (store error, conflict, unknown model, …): the call went through unchanged. */
  | 'prepare_failed'
  /** The call carried the caller's own cache markers (Anthropic, OpenAI or Bedrock): they were removed, the engine's are sent instead. */
  | 'caller_cache_control'
  /** Something is recallable but the call has no `recall` tool: its definition was added; register `recallTool()` to answer it. */
  | 'recall_tool_missing'
  /** The response's usage could not be recorded (no usage reported, store error). The response itself is unaffected. */
  | 'usage_not_recorded'
  /**
   * The conversation's previous call streamed and this one does not (or the reverse): `@ai-sdk/anthropic` sends
   * `eager_input_streaming` on a streamed call's tools only, so the tools (the front of the cached prefix) changed and
   * this request re-writes the cache. `providerOptions.anthropic.toolStreaming: false` on the streamed calls keeps one form.
   */
  | 'tool_streaming_switched';

/** A warning of the middleware. */
export interface CachepointWarning {
  readonly code: CachepointWarningCode;
  readonly message: string;
  /** The conversation, when known. */
  readonly conversationId?: string;
}

/** Per-call options, under `providerOptions.cachepoint` of `generateText` / `streamText`. */
export interface CachepointCallOptions {
  /** The conversation this call belongs to (overrides the middleware's `conversationId`). */
  readonly conversationId?: string;
  /** The volatile tail of this call (overrides the middleware's `tail`). */
  readonly tail?: string;
}

/** What the middleware knows about a call when it asks for the tail. */
export interface TailContext {
  readonly conversationId: string;
  readonly call: CallOptions;
}

/** What a render did, for observing (`onPlan`). */
export interface CachepointPlanEvent {
  readonly conversationId: string;
  readonly type: 'generate' | 'stream';
  readonly plan: PreparePlan;
  /** The Anthropic params the provider will send (prompt fields), markers included. */
  readonly request: AnthropicPrompt;
}

/** Options of {@link cachepointMiddleware}. */
export interface CachepointMiddlewareOptions {
  /**
   * The conversation a call belongs to: a fixed id (one wrapped model per
   * conversation) or a function of the call. `providerOptions.cachepoint.conversationId`
   * of the call wins over both.
   */
  readonly conversationId?: string | ((call: CallOptions) => string | undefined);
  /** Where conversations live (memory, file, Redis). Default: the process-wide in-memory store of `prepare`. */
  readonly store?: ConversationStore;
  /**
   * The volatile end of every request (live view, budget, clock): rendered
   * after the last cache point, never cached, never kept in the history.
   */
  readonly tail?:
    | string
    | readonly ContentBlockParam[]
    | ((context: TailContext) => string | readonly ContentBlockParam[] | undefined | Promise<string | readonly ContentBlockParam[] | undefined>);
  /** Render options (policy, TTLs, thresholds, summarizer, model profiles, …), as for `prepare`. */
  readonly render?: PrepareOptions['render'];
  /**
   * Which wrapped models get cache options, by their `provider` id.
   * Default: the Anthropic provider and its Bedrock and Vertex variants
   * (`anthropic.messages`, `bedrock.anthropic.messages`, `googleVertex.anthropic.messages`),
   * `@ai-sdk/openai` (`openai.responses`, `openai.chat`) and `@ai-sdk/amazon-bedrock`'s
   * Converse models (`amazon-bedrock`), and Claude models through the AI Gateway
   * (`gateway` with an `anthropic/…` model id, the second argument). A provider id
   * allowed here that is none of those is treated as Anthropic Messages.
   */
  readonly supports?: (provider: string, modelId: string) => boolean;
  /**
   * Called for each warning. Warnings also go into the call's `warnings`, which
   * the AI SDK logs by default; a usage that could not be recorded after a
   * stream started goes to `console.warn` (once) when this is not set.
   */
  readonly onWarning?: (warning: CachepointWarning) => void;
  /** Called after each render with its plan. */
  readonly onPlan?: (event: CachepointPlanEvent) => void;
  /** The clock (ms). Default `Date.now`. */
  readonly now?: () => number;
}

// IMPLEMENTATION

/** Whether a model `provider` id (with its model id, for the AI Gateway) is one whose calls accept `providerOptions.anthropic.cacheControl`. */
export function isAnthropicProvider(provider: string, modelId?: string): boolean {
  return providerFamily(provider, modelId) === 'anthropic';
}

/**
 * Whether the middleware serves a model `provider` id (Anthropic Messages and variants, OpenAI, Bedrock Converse, Claude
 * through the AI Gateway: the gateway's model id decides).
 */
export function isServedProvider(provider: string, modelId?: string): boolean {
  return providerFamily(provider, modelId) !== undefined;
}

interface CallContext {
  readonly conversationId: string;
  readonly warnings: CachepointWarning[];
  /** False when the call went through unchanged (nothing prepared, no usage to record). */
  readonly prepared: boolean;
  /** The wrapped model's provider family (how its usage reads). */
  readonly family?: ProviderFamily;
}

function cachepointOptions(call: CallOptions): CachepointCallOptions {
  const c = call.providerOptions?.['cachepoint'];
  return c !== null && typeof c === 'object' && !Array.isArray(c) ? (c as CachepointCallOptions) : {};
}

/** The call without our own `providerOptions.cachepoint` (the provider never sees it). */
function withoutOwnOptions(call: CallOptions): CallOptions {
  if (call.providerOptions?.['cachepoint'] === undefined) return call;
  const { cachepoint: _own, ...rest } = call.providerOptions;
  const { providerOptions: _po, ...others } = call;
  return Object.keys(rest).length > 0 ? { ...others, providerOptions: rest as ProviderOptions } : others;
}

/**
 * What the middleware keeps of a conversation's last mapped call, so the next
 * call maps only what it appended (the AI SDK hands every call new objects
 * with the same values: the shared part is found by value, message by
 * message, and its mapping reused).
 */
interface LastCall {
  readonly mapped: MappedPrompt;
  /** The original parts of `mapped.prompt` (extended in place by the next call when no call is using it). */
  readonly index: SharedIndex;
  /** The first message of `mapped.prompt` with a caller cache marker, or -1. */
  readonly firstMarked: number;
}

interface SharedIndex {
  readonly index: PromptIndex;
  /** Calls between their mapping and their mapping back that read this index (then it is not extended in place). */
  users: number;
}

/** Conversations whose last call is kept (least recently used dropped first). */
const LAST_CALLS = 64;

function recallable(state: TimelineState): boolean {
  // The set's size, not Object.keys(state.hidden): that would build the plain form of a long session's set per call.
  return state.summaries.length > 0 || hiddenSetOf(state).size > 0;
}

function asCallWarning(w: CachepointWarning): CallWarning {
  return { type: 'other', message: `cachepoint: ${w.message}` };
}

/**
 * The middleware. Wrap an Anthropic model (direct, Bedrock or Vertex) with it
 * and run your `generateText` / `streamText` loop as before.
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: anthropic('claude-sonnet-4-6'),
 *   middleware: cachepointMiddleware({ conversationId: 'chat-42' }),
 * });
 * const result = streamText({ model, instructions, prompt, tools, stopWhen: stepCountIs(20) });
 */
export function cachepointMiddleware(options: CachepointMiddlewareOptions = {}): LanguageModelMiddleware {
  refuseUnknownKeys(options, MIDDLEWARE_OPTION_KEYS);
  checkOptions(options);
  const contexts = new WeakMap<CallOptions, CallContext>();
  const lastCalls = new Map<string, LastCall>();
  const warned = new Set<string>();
  const supports = options.supports ?? isServedProvider;
  const now = options.now ?? Date.now;
  /** A warning that cannot reach the call's `warnings` (the stream already started) goes to the console once, unless `onWarning` takes it. */
  const late = (w: CachepointWarning) => {
    const key = `${w.code}\u0000${w.conversationId ?? ''}`;
    if (warned.has(key)) return;
    warned.add(key);
    console.warn(`cachepoint: ${w.message}`);
  };

  function warn(list: CachepointWarning[], code: CachepointWarningCode, message: string, conversationId?: string): void {
    const w: CachepointWarning = conversationId === undefined ? { code, message } : { code, message, conversationId };
    list.push(w);
    options.onWarning?.(w);
  }

  /** The call unchanged (but for our own options), remembered with its warnings. */
  function unchanged(call: CallOptions, warnings: CachepointWarning[], conversationId = ''): CallOptions {
    const out = withoutOwnOptions(call);
    contexts.set(out, { conversationId, warnings, prepared: false });
    return out;
  }

  async function tailOf(call: CallOptions, conversationId: string): Promise<string | readonly ContentBlockParam[] | undefined> {
    const own = cachepointOptions(call).tail;
    if (own !== undefined) return own;
    const t = options.tail;
    return typeof t === 'function' ? await t({ conversationId, call }) : t;
  }

  async function transform(call: CallOptions, type: 'generate' | 'stream', model: WrappedModel): Promise<CallOptions> {
    const warnings: CachepointWarning[] = [];
    const fixed = options.conversationId;
    const conversationId = cachepointOptions(call).conversationId ?? (typeof fixed === 'function' ? fixed(call) : fixed);
    if (conversationId === undefined || conversationId === '') {
      warn(
        warnings,
        'no_conversation_id',
        'no conversation id for this call (set providerOptions.cachepoint.conversationId or the conversationId option); sent unchanged',
      );
      return unchanged(call, warnings);
    }
    if (!supports(model.provider, model.modelId)) {
      warn(
        warnings,
        'unsupported_provider',
        `provider "${model.provider}"${model.provider === 'gateway' ? ` with model "${model.modelId}"` : ''} is not served (Anthropic Messages, OpenAI, Bedrock Converse, Claude through the AI Gateway); sent unchanged`,
        conversationId,
      );
      return unchanged(call, warnings, conversationId);
    }
    let before: AnthropicPrompt;
    const last = lastCalls.get(conversationId);
    let shared: SharedIndex;
    let marked: number;
    const anthropicFamily = (providerFamily(model.provider, model.modelId) ?? 'anthropic') === 'anthropic';
    try {
      // Only the Anthropic providers send eager_input_streaming on a streamed call's tools, and not every version: for
      // the others a streamed call's tools are mapped as an unstreamed one's, the bytes their requests carry.
      const streamForm = type === 'stream' && anthropicFamily && (await streamsEagerTools(model));
      const { mapped, reuse } = mapPrompt(call, streamForm ? 'stream' : 'generate', last?.mapped);
      before = mapped.result;
      // Only the messages past the part equal to the last call's can add or move a caller marker.
      marked =
        last !== undefined && last.firstMarked >= 0 && last.firstMarked < reuse.same
          ? last.firstMarked
          : firstMarkedMessage(call.prompt, last !== undefined ? reuse.same : 0);
      if (last !== undefined && reuse.same === last.mapped.prompt.length && last.index.users === 0) {
        // The last call's prompt, then new messages: its index plus theirs.
        shared = last.index;
        indexPrompt(shared.index, call.prompt, reuse.from, before, reuse.messages);
      } else shared = { index: indexPrompt(emptyIndex(), call.prompt, 0, before, 0), users: 0 };
      // The same tools, sent in another form: only the eager-input flag of a streamed call differs (Anthropic providers).
      if (last !== undefined && anthropicFamily && sameData(call.tools, last.mapped.callTools) && !sameData(mapped.result.tools, last.mapped.result.tools)) {
        warn(
          warnings,
          'tool_streaming_switched',
          `this call ${type === 'stream' ? 'streams' : 'does not stream'} and the conversation's previous one ${type === 'stream' ? 'did not' : 'did'}: the provider sends eager_input_streaming on a streamed call's tools only, so the tools, the front of the cached prefix, changed and this request re-writes the cache; pass providerOptions.anthropic.toolStreaming: false to the streamed calls to keep one form`,
          conversationId,
        );
      }
      lastCalls.delete(conversationId);
      lastCalls.set(conversationId, { mapped, index: shared, firstMarked: marked });
      if (lastCalls.size > LAST_CALLS) lastCalls.delete(lastCalls.keys().next().value!);
    } catch (e) {
      if (!(e instanceof UnmappablePromptError)) throw e;
      warn(warnings, 'unmappable_prompt', `${e.message}; sent unchanged`, conversationId);
      return unchanged(call, warnings, conversationId);
    }
    shared.users++;
    try {
      return await prepareAndMapBack(call, type, model, conversationId, warnings, before, shared.index, marked >= 0 || callerMarkersOutsidePrompt(call));
    } finally {
      shared.users--;
    }
  }

  async function prepareAndMapBack(
    call: CallOptions,
    type: 'generate' | 'stream',
    model: WrappedModel,
    conversationId: string,
    warnings: CachepointWarning[],
    before: AnthropicPrompt,
    index: PromptIndex,
    markers: boolean,
  ): Promise<CallOptions> {
    const store = options.store;
    const family = providerFamily(model.provider, model.modelId) ?? 'anthropic';
    const modelId = engineModelId(model.provider, model.modelId, options.render?.profiles);
    let prepared: Awaited<ReturnType<typeof prepare>>;
    let profile: ReturnType<typeof resolveProfile>;
    try {
      const render = renderOptionsFor(family, modelId, options.render);
      profile = render?.profile ?? resolveProfile(modelId, render?.profiles);
      prepared = await prepare(
        { model: modelId, ...before },
        {
          conversationId,
          ...(store ? { store } : {}),
          ...(render ? { render } : {}),
          now: now(),
          ...(await tailOf(call, conversationId).then((tail) => (tail === undefined ? {} : { tail }))),
        },
      );
    } catch (e) {
      warn(warnings, 'prepare_failed', `prepare failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}); sent unchanged`, conversationId);
      return unchanged(call, warnings, conversationId);
    }
    if (markers) {
      warn(
        warnings,
        'caller_cache_control',
        'the call carries its own cache markers (anthropic.cacheControl, openai.promptCacheBreakpoint or bedrock.cachePoint); cachepoint places the cache points and removed them (never a fifth marker)',
        conversationId,
      );
    }
    const out = prepared.params;
    const rendered: AnthropicPrompt = {
      ...(out.tools ? { tools: out.tools as Tool[] } : {}),
      ...(out.system ? { system: out.system } : {}),
      messages: out.messages as MessageParam[],
    };
    if (recallable(prepared.rendered.state) && !(call.tools ?? []).some((t) => t.name === recallTool.name)) {
      warn(
        warnings,
        'recall_tool_missing',
        'some content is now recallable but the call has no "recall" tool: its definition was added; add recallTool() from cachepoint/ai-sdk to your tools to answer it',
        conversationId,
      );
      (rendered as { tools?: Tool[] }).tools = [...(rendered.tools ?? []), recallTool];
    }
    let next: CallOptions;
    try {
      const mapped = fromAnthropicPrompt(call, rendered, before, markerTarget(family, profile, model.provider), index);
      next = withoutOwnOptions(withCallOptions(mapped, family, profile, conversationId, prepared.rendered.cachePoints.length > 0));
      const uncached = model.provider === 'gateway' ? withoutGatewayCaching(next) : undefined;
      if (uncached) {
        next = uncached;
        warn(
          warnings,
          'caller_cache_control',
          "the call sets the AI Gateway's own caching (providerOptions.gateway.caching), which adds a marker of its own; cachepoint places the cache points and removed it (never a fifth marker)",
          conversationId,
        );
      }
    } catch (e) {
      if (!(e instanceof UnmappablePromptError)) throw e;
      warn(warnings, 'unmappable_prompt', `${e.message}; sent unchanged`, conversationId);
      return unchanged(call, warnings, conversationId);
    }
    contexts.set(next, { conversationId, warnings, prepared: true, family });
    options.onPlan?.({ conversationId, type, plan: prepared.plan, request: rendered });
    return next;
  }

  async function record(
    ctx: CallContext,
    metadata: ProviderOptions | undefined,
    usage: Parameters<typeof reportedUsage>[1],
    id: string | undefined,
  ): Promise<CachepointWarning[]> {
    if (!ctx.prepared) return [];
    const extra: CachepointWarning[] = [];
    const reported = reportedUsage(metadata, usage, ctx.family);
    if (!reported) {
      warn(extra, 'usage_not_recorded', 'the response reported no usage; stats and calibration skip it', ctx.conversationId);
    } else {
      try {
        await recordUsageOrThrow(id === undefined ? { usage: reported } : { usage: reported, id }, {
          conversationId: ctx.conversationId,
          ...(options.store ? { store: options.store } : {}),
          now: now(),
        });
      } catch (e) {
        warn(extra, 'usage_not_recorded', `recording the usage failed (${e instanceof Error ? e.message : String(e)})`, ctx.conversationId);
      }
    }
    return extra;
  }

  return {
    specificationVersion: 'v4',
    transformParams: async ({ params, type, model }) => transform(params, type, model),

    wrapGenerate: async ({ doGenerate, params }) => {
      const ctx = contexts.get(params);
      const result = await doGenerate();
      if (!ctx) return result;
      const warnings = [...ctx.warnings, ...(await record(ctx, result.providerMetadata, result.usage, result.response?.id))].map(asCallWarning);
      return warnings.length > 0 ? { ...result, warnings: [...result.warnings, ...warnings] } : result;
    },

    wrapStream: async ({ doStream, params }) => {
      const ctx = contexts.get(params);
      const { stream, ...rest } = await doStream();
      if (!ctx) return { stream, ...rest };
      let responseId: string | undefined;
      const piped = stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          async transform(part, controller) {
            if (part.type === 'stream-start' && ctx.warnings.length > 0) {
              controller.enqueue({ ...part, warnings: [...part.warnings, ...ctx.warnings.map(asCallWarning)] });
              return;
            }
            if (part.type === 'response-metadata' && part.id !== undefined) responseId = part.id;
            // Recorded before the finish part goes on, so the loop's next step finds the conversation settled.
            if (part.type === 'finish') {
              const missed = await record(ctx, part.providerMetadata, part.usage, responseId);
              if (!options.onWarning) missed.forEach(late);
            }
            controller.enqueue(part);
          },
        }),
      );
      return { stream: piped, ...rest };
    },
  };
}

/**
 * Options that could never work are refused here, once: each would otherwise fail every call into
 * `prepare_failed` (sent unchanged: no caching, a warning per call), or throw out of the call (a callback
 * that is not a function).
 */
function checkOptions(o: CachepointMiddlewareOptions): void {
  const id: unknown = o.conversationId;
  if (id !== undefined && typeof id !== 'function' && (typeof id !== 'string' || id === '')) {
    throw new InvalidOptionError('conversationId', 'must be a non-empty string or a function of the call', {
      value: id,
      expected: 'a non-empty string or (call) => string | undefined',
    });
  }
  const tail: unknown = o.tail;
  if (tail !== undefined && typeof tail !== 'string' && typeof tail !== 'function' && !Array.isArray(tail)) {
    throw new InvalidOptionError('tail', 'must be a string, an array of content blocks, or a function of the call returning one', { value: tail });
  }
  const storeProblem = o.store === undefined ? undefined : conversationStoreProblem(o.store);
  if (storeProblem) throw new InvalidOptionError('store', storeProblem);
  for (const key of ['supports', 'onWarning', 'onPlan', 'now'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') throw new InvalidOptionError(key, 'must be a function', { value: o[key] });
  }
  if (o.render !== undefined && (o.render === null || typeof o.render !== 'object' || Array.isArray(o.render))) {
    throw new InvalidOptionError('render', 'must be an object of render options (policy, ttl, prune, …)', { value: o.render });
  }
  // The render options as prepare will check them on every call (an unknown key, a value out of range).
  if (o.render !== undefined) resolveRenderOptions(o.render);
}

/** The keys of {@link CachepointMiddlewareOptions}: any other is a typo, refused. */
const MIDDLEWARE_OPTION_KEYS = optionKeys<CachepointMiddlewareOptions>({
  conversationId: true,
  store: true,
  tail: true,
  render: true,
  supports: true,
  onWarning: true,
  onPlan: true,
  now: true,
});

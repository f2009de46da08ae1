/**
 * OpenTelemetry for cachepoint (`cachepoint/otel`; optional peer
 * `@opentelemetry/api`, which only this entry point imports: the core never
 * loads it). Two kinds of span:
 *
 * - **one per model request** you render (`render`, `Session`, `prepare`'s
 *   `rendered`): an inference span (`chat {model}`, kind CLIENT) with the
 *   GenAI semantic-convention attributes (`gen_ai.operation.name`,
 *   `gen_ai.provider.name`, `gen_ai.request.model`, and at the end the
 *   reported usage: `gen_ai.usage.input_tokens` (all input, cached or not, as
 *   the conventions define it), `gen_ai.usage.output_tokens`,
 *   `gen_ai.usage.cache_read.input_tokens`,
 *   `gen_ai.usage.cache_creation.input_tokens`), plus cachepoint's own under
 *   `cachepoint.*`: cache points, predicted vs reported reads, cost, bust,
 *   decisions;
 * - **one per tool call** through a {@link ToolCache}: `execute_tool {name}`
 *   with `gen_ai.tool.name`, `gen_ai.tool.call.id` and the cache status
 *   (`cachepoint.tool_cache.status`: hit, miss, shared, bypass, write).
 *
 * The attribute names follow the OpenTelemetry GenAI semantic conventions
 * (development status): see docs/opentelemetry.md.
 */
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer, context as otelContext, trace } from '@opentelemetry/api';
import { priceUsage, type ReportedUsage } from '../../models/pricing.js';
import type { Rendered } from '../../render/types.js';
import type { ToolCache, ToolCallOptions, ToolCallResult, ToolRunner } from '../../toolcache/tool-cache.js';

// TYPES

export interface TelemetryOptions {
  /** Default: `trace.getTracer('cachepoint')` from the global provider. */
  readonly tracer?: Tracer;
  /** `gen_ai.provider.name` (default `anthropic`; `aws.bedrock`, `gcp.vertex_ai` for those routes). */
  readonly provider?: string;
}

/** What the response said, for {@link RequestSpan.end}. */
export interface ResponseInfo {
  /** The response's `usage` (Anthropic field names). */
  readonly usage?: ReportedUsage;
  readonly id?: string;
  readonly model?: string;
  readonly stopReason?: string | null;
}

/** The span of one model request; end it when the response (or the error) arrives. */
export interface RequestSpan {
  readonly span: Span;
  /** The context with this span active (to parent the tool spans of this round). */
  readonly context: Context;
  /** Records the reported usage against the plan's prediction and ends the span. Idempotent. */
  end(response?: ResponseInfo): void;
  /** Records the error (status ERROR, `error.type`) and ends the span. */
  fail(error: unknown): void;
}

export interface RequestSpanOptions {
  /** `gen_ai.conversation.id`. */
  readonly conversationId?: string;
  /** Parent context (default: the active one). */
  readonly parent?: Context;
}

export interface CachepointTelemetry {
  /** Starts the span of a rendered request. */
  request(rendered: Rendered, options?: RequestSpanOptions): RequestSpan;
  /** Runs one call through the tool cache inside an `execute_tool` span carrying its cache status. */
  toolCall<TArgs>(cache: ToolCache, name: string, args: TArgs, run: ToolRunner<TArgs>, options: ToolCallOptions, parent?: Context): Promise<ToolCallResult>;
  /** A view of `cache` whose every `call` is traced (the cache itself is untouched). */
  instrument(cache: ToolCache): ToolCache;
}

// IMPLEMENTATION

const LABEL = ['0', '1', '2', '3', '4'] as const;

/** The attributes known when the request is rendered: the model, the plan, the points, the decisions. */
export function requestAttributes(rendered: Rendered, provider = 'anthropic', conversationId?: string): Attributes {
  const plan = rendered.plan;
  const decisions: Record<string, number> = {};
  for (const d of rendered.decisions) decisions[d.type] = (decisions[d.type] ?? 0) + 1;
  const attrs: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': rendered.model,
    'cachepoint.turn': rendered.turn,
    'cachepoint.round': rendered.round,
    'cachepoint.tokens.envelope': rendered.tokens.envelope,
    'cachepoint.tokens.timeline': rendered.tokens.timeline,
    'cachepoint.tokens.tail': rendered.tokens.tail,
    'cachepoint.tokens.total': rendered.tokens.total,
    // One entry per marker: "labels ttl path", e.g. "1 5m envelope/instructions/1".
    'cachepoint.cache_points': rendered.cachePoints.map(
      (p) => `${p.labels.map((l) => LABEL[l]).join('+')} ${p.ttl} ${p.path}${p.moved ? ` (${p.moved})` : ''}`,
    ),
    'cachepoint.plan.warm': plan.warm,
    'cachepoint.plan.bust': plan.bust,
    'cachepoint.plan.cache_read.input_tokens': plan.usage.cache_read_input_tokens,
    'cachepoint.plan.cache_creation.input_tokens': plan.usage.cache_creation_input_tokens,
    'cachepoint.plan.input_tokens': plan.usage.input_tokens,
    'cachepoint.plan.cost_usd': plan.cost,
    'cachepoint.decisions': rendered.decisions.filter((d) => d.type !== 'notice').map((d) => `${d.type} ${d.path}`),
  };
  for (const [type, n] of Object.entries(decisions)) attrs[`cachepoint.decisions.${type}`] = n;
  if (plan.read) attrs['cachepoint.plan.read_point'] = plan.read.path;
  if (plan.cause) attrs['cachepoint.plan.prefix_change'] = plan.cause;
  if (plan.firstChangePath) attrs['cachepoint.plan.first_change_path'] = plan.firstChangePath;
  if (conversationId !== undefined) attrs['gen_ai.conversation.id'] = conversationId;
  return attrs;
}

/** The attributes of the reported usage, and how it compares with the plan. */
export function usageAttributes(rendered: Rendered, usage: ReportedUsage): Attributes {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const predicted = rendered.plan.usage.cache_read_input_tokens;
  const attrs: Attributes = {
    // The conventions count cached input inside input_tokens; Anthropic reports it apart.
    'gen_ai.usage.input_tokens': usage.input_tokens + read + write,
    'gen_ai.usage.cache_read.input_tokens': read,
    'gen_ai.usage.cache_creation.input_tokens': write,
    'cachepoint.reported.uncached_input_tokens': usage.input_tokens,
    'cachepoint.reported.cost_usd': priceUsage(rendered.profile.prices, usage).total,
    'cachepoint.read_delta_tokens': read - predicted,
    // Fewer tokens read than the plan expected: an entry it counted on was gone (expired, evicted, or never written).
    'cachepoint.miss': read < predicted,
  };
  if (typeof usage.output_tokens === 'number') attrs['gen_ai.usage.output_tokens'] = usage.output_tokens;
  return attrs;
}

function errorType(error: unknown): string {
  if (error instanceof Error)
    return (error as { code?: unknown }).code && typeof (error as { code?: unknown }).code === 'string'
      ? String((error as { code?: unknown }).code)
      : error.name;
  return '_OTHER';
}

function toolStatusAttributes(r: ToolCallResult): Attributes {
  const c = r.cache;
  const attrs: Attributes = { 'cachepoint.tool_cache.status': c.type, 'cachepoint.tool.duration_ms': r.durationMs };
  switch (c.type) {
    case 'hit':
      attrs['cachepoint.tool_cache.inserted_turn'] = c.insertedTurn;
      break;
    case 'miss':
      attrs['cachepoint.tool_cache.expired'] = c.expired;
      attrs['cachepoint.tool_cache.inserted'] = c.inserted;
      if (c.notInserted) attrs['cachepoint.tool_cache.not_inserted'] = c.notInserted;
      break;
    case 'bypass':
      attrs['cachepoint.tool_cache.bypass_reason'] = c.reason;
      break;
    case 'write':
      attrs['cachepoint.tool_cache.write_ok'] = c.ok;
      attrs['cachepoint.tool_cache.evicted'] = c.evicted.length;
      break;
    case 'shared':
      break;
  }
  return attrs;
}

/**
 * Creates the telemetry helpers.
 *
 * @example
 * const telemetry = cachepointTelemetry();
 * const r = render(state);
 * const span = telemetry.request(r, { conversationId });
 * const message = await client.messages.create(toAnthropic(r));
 * span.end({ usage: message.usage, id: message.id, model: message.model, stopReason: message.stop_reason });
 * const tools = telemetry.instrument(toolCache); // tools.call(...) now traces every call
 */
export function cachepointTelemetry(options: TelemetryOptions = {}): CachepointTelemetry {
  const tracer = options.tracer ?? trace.getTracer('cachepoint');
  const provider = options.provider ?? 'anthropic';
  // Instrumented views → their cache, so toolCall on a view traces the call once, not twice.
  const views = new WeakMap<ToolCache, ToolCache>();

  const toolCall = async <TArgs>(
    cache: ToolCache,
    name: string,
    args: TArgs,
    run: ToolRunner<TArgs>,
    callOptions: ToolCallOptions,
    parent: Context = otelContext.active(),
  ): Promise<ToolCallResult> => {
    const span = tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'gen_ai.tool.call.id': callOptions.callId,
          'gen_ai.tool.type': 'function',
        },
      },
      parent,
    );
    try {
      const target = views.get(cache) ?? cache;
      const result = await otelContext.with(trace.setSpan(parent, span), () => target.call(name, args, run, callOptions));
      span.setAttributes(toolStatusAttributes(result));
      if (result.isError) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool returned an error' });
        span.setAttribute('error.type', 'tool_error');
      }
      return result;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.setAttribute('error.type', errorType(err));
      throw err;
    } finally {
      span.end();
    }
  };

  return {
    request(rendered, requestOptions = {}) {
      const parent = requestOptions.parent ?? otelContext.active();
      const span = tracer.startSpan(
        `chat ${rendered.model}`,
        { kind: SpanKind.CLIENT, attributes: requestAttributes(rendered, provider, requestOptions.conversationId) },
        parent,
      );
      let ended = false;
      return {
        span,
        context: trace.setSpan(parent, span),
        end(response = {}) {
          if (ended) return;
          ended = true;
          if (response.usage) span.setAttributes(usageAttributes(rendered, response.usage));
          if (response.id) span.setAttribute('gen_ai.response.id', response.id);
          if (response.model) span.setAttribute('gen_ai.response.model', response.model);
          if (response.stopReason) span.setAttribute('gen_ai.response.finish_reasons', [response.stopReason]);
          span.end();
        },
        fail(error) {
          if (ended) return;
          ended = true;
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          span.setAttribute('error.type', errorType(error));
          span.end();
        },
      };
    },
    toolCall,
    instrument(cache) {
      const target = views.get(cache) ?? cache;
      const view = new Proxy(target, {
        get(target, prop) {
          if (prop === 'call') {
            return <TArgs>(name: string, args: TArgs, run: ToolRunner<TArgs>, callOptions: ToolCallOptions) => toolCall(target, name, args, run, callOptions);
          }
          // Private fields need the real instance as `this` (getters and methods alike).
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      views.set(view, target);
      return view;
    },
  };
}

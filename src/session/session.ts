/**
 * The agent-loop API: one object that keeps the session state and does, in
 * order, what a loop needs before and after each model call. It is a thin shell
 * over the pure functions (render, toAnthropic, the timeline edits, the tool
 * cache): everything it does can be done by hand with them.
 */
import type {
  AnthropicRequestParams,
  ContentBlock,
  ContentBlockParam,
  Message,
  PortableToolResultBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '../providers/anthropic-types.js';
import { canonicalModelId, diagnosticsUnavailable, resolveProfile, unsendableModelId, type ModelProfile } from '../models/profiles.js';
import type { ProviderId } from '../models/caching.js';
import {
  assertClient,
  callCreate,
  callStream,
  type CallOptions,
  type MessageOf,
  type MessagesClient,
  type MessageStreamLike,
  type StreamEventLike,
} from './client.js';
import { formatRequests, pendingOf, requestRecord, totalsOf, type PendingRequest, type RequestRecord, type SessionTotals } from './stats.js';
import { anthropicHeaders, toAnthropic, type RequestExtras } from '../providers/anthropic.js';
import { hideBlock, recall, type HideOptions, type HideResult } from '../render/hide-block.js';
import { handleRecall, recallTool } from '../recall/recall-tool.js';
import { render, renderAsync } from '../render/render.js';
import { streamLength } from '../render/projection.js';
import type { Rendered, RenderOptions } from '../render/types.js';
import { Calibration } from '../tokens/calibration.js';
import { appendResponse, appendToolResults, createTimeline, setTail, startTurn, type CreateTimelineInput } from '../timeline/edit.js';
import type { BlockPath, TimelineState } from '../timeline/types.js';
import type { ToolCache, ToolRunner } from '../toolcache/tool-cache.js';
import type { CachedContent } from '../toolcache/store.js';
import { formatStats, type ToolCacheStats } from '../toolcache/stats.js';
import { InvalidOptionError, TimelineError } from '../errors.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import { refuseBlocks } from '../internal/block-rules.js';
import { refuseManualThinking, thinkingToDisable } from '../internal/loop-thinking.js';

export type { RequestRecord } from './stats.js';

/** Totals over the session. */
export interface SessionStats {
  readonly requests: readonly RequestRecord[];
  readonly totals: SessionTotals;
  /** Local token estimate × this ≈ the provider's count. */
  readonly calibration: number;
  readonly toolCache?: ToolCacheStats;
}

/** Options of {@link Session.step}. */
export interface StepOptions extends CallOptions {
  /** Stream the response (`messages.stream`): events and text arrive through the callbacks below. */
  readonly stream?: boolean;
  /** Each SDK stream event, as it arrives (streaming only). */
  readonly onEvent?: (event: StreamEventLike) => void;
  /** Each text delta, as it arrives (streaming only). */
  readonly onText?: (text: string) => void;
}

/** A streaming step (see {@link Session.stream}); `M` is the client's message type ({@link MessageOf}). */
export interface SessionStream<M = Message> extends AsyncIterable<StreamEventLike> {
  /** Only the text deltas, as they arrive. */
  textDeltas(): AsyncIterable<string>;
  /** The final message, recorded exactly as `step()` records it (tools run when it asked for them). */
  finalMessage(): Promise<M>;
  /** Cancels the request (nothing is recorded). */
  abort(): void;
}

/** The text of a `content_block_delta` text event. */
function textDelta(event: StreamEventLike): string | undefined {
  if (event.type !== 'content_block_delta') return undefined;
  const delta = event['delta'] as { type?: string; text?: string } | undefined;
  return delta?.type === 'text_delta' ? delta.text : undefined;
}

/** Options of {@link Session}. */
export interface SessionOptions extends CreateTimelineInput {
  /** Render options used for every request (policy, TTLs, thresholds, summarizer, …). */
  readonly render?: Omit<RenderOptions, 'now'>;
  /** Request fields added to every request (max_tokens, thinking, …). */
  readonly request?: RequestExtras;
  /** Tool cache that runs tool calls (optional). */
  readonly toolCache?: ToolCache;
  /** Tool implementations by name, for {@link Session.runTools}. */
  readonly handlers?: Readonly<Record<string, ToolRunner<never>>>;
  /** Scope (tenant/user) for the tool cache. Default `default`. */
  readonly scope?: string;
  /** The clock (ms). Default Date.now. */
  readonly now?: () => number;
  /**
   * Ask the API for its cache diagnostics on every request (`diagnostics:
   * { previous_message_id }`); each response's miss reason is recorded next to
   * the plan's predicted cause, and disagreements are counted in the stats.
   * Only where the API offers them (the Claude API): with a Bedrock or Vertex model id, an
   * `InvalidOptionError`. Default false.
   */
  readonly diagnostics?: boolean;
}

/**
 * An agent session.
 *
 * @example
 * const session = new Session({ model: 'claude-sonnet-4-6', instructions: [SYSTEM], tools, handlers, toolCache });
 * session.startTurn('Fix the failing test');
 * for (;;) {
 *   const message = await client.messages.create(await session.request({ max_tokens: 4096 }));
 *   session.recordResponse(message);
 *   if (message.stop_reason !== 'tool_use') break;
 *   await session.runTools();
 * }
 * console.log(session.formatStats());
 */
export class Session {
  #state: TimelineState;
  #last: Rendered | undefined;
  #pending: PendingRequest | undefined;
  #lastMessageId: string | undefined;
  /** A paused turn's content (stop_reason `pause_turn`), sent back last by the next request, as `prepare` does. */
  #paused: readonly ContentBlock[] | undefined;
  readonly #records: RequestRecord[] = [];
  readonly #options: SessionOptions;
  readonly #now: () => number;
  readonly #calibration = new Calibration();
  readonly #profile: ModelProfile;

  /** The API the profile's requests go to: the Messages API's rules on documents and images hold for 'anthropic'. */
  get #api(): ProviderId {
    return this.#profile.provider ?? 'anthropic';
  }

  constructor(options: SessionOptions) {
    checkSessionOptions(options);
    this.#options = options;
    this.#state = createTimeline(options);
    this.#now = options.now ?? Date.now;
    this.#profile = options.render?.profile ?? resolveProfile(options.model, options.render?.profiles);
  }

  /**
   * The current immutable state (for snapshots, persistence, or the pure functions). A `pause_turn` response the
   * session holds is not in it (see {@link paused}): the timeline has no half-finished round.
   */
  get state(): TimelineState {
    return this.#state;
  }

  /**
   * The content of a `pause_turn` response held until the turn goes on (undefined when none): the next
   * {@link request} sends it back last, and the continuation is recorded with it as one response. It is not part of
   * {@link state}, so whoever continues the loop from `state` alone (the pure functions, a snapshot) must send it
   * back the same way: as a last assistant message, after the tail, unmarked.
   *
   * @example
   * const params = toAnthropic(render(session.state), extras);
   * if (session.paused) params.messages.push({ role: 'assistant', content: [...session.paused] });
   */
  get paused(): readonly ContentBlock[] | undefined {
    return this.#paused;
  }

  /** The latest render (undefined before the first). */
  get rendered(): Rendered | undefined {
    return this.#last;
  }

  /** Starts a turn with the user's message; advances the tool cache's turn clock. */
  startTurn(content: string | readonly ContentBlockParam[]): this {
    refuseBlocks(content, `turns/${this.#state.turns.length + 1}/user`, this.#api);
    // A paused turn not continued is history like any response (as `prepare` maps [..., paused, user]).
    const paused = this.#paused;
    const state = paused ? appendResponse(this.#state, paused, this.#now()) : this.#state;
    this.#state = startTurn(state, content, this.#now());
    this.#paused = undefined;
    this.#options.toolCache?.advanceTurn();
    return this;
  }

  /** Sets the volatile tail of the next request. */
  setTail(content: string | readonly ContentBlockParam[]): this {
    refuseBlocks(content, 'tail', this.#api);
    this.#state = setTail(this.#state, content);
    return this;
  }

  /** Renders the next request (async: a summarizer may run when compaction triggers). */
  async render(): Promise<Rendered> {
    const factor = this.#calibration.factor(this.#state.model);
    const options = { ...this.#options.render, now: this.#now(), tokenFactor: factor };
    // Without a summarizer nothing can be awaited: render directly (renderAsync would plan the compaction twice).
    const r = this.#options.render?.summarizer ? await renderAsync(this.#state, options) : render(this.#state, options);
    this.#state = r.state;
    this.#last = r;
    return r;
  }

  /**
   * The HTTP headers every request of this session needs besides its params: `anthropic-beta`
   * for a 1M-window profile (`model: 'claude-sonnet-4-5[1m]'` or `longContextProfile(…)`), else none.
   * (A request whose `thinking.block_binding` is set also needs `thinking-binding-controls-2026-08-01`:
   * {@link step} and {@link stream} add it; with {@link request}'s params use `anthropicHeaders(r, params)`.)
   * {@link step} and {@link stream} send them; pass them yourself when you call the client with
   * {@link request}'s params: `client.messages.create(params, { headers: session.headers })`.
   */
  get headers(): Readonly<Record<string, string>> {
    return anthropicHeaders({ profile: this.#profile });
  }

  /** Renders and returns `client.messages.create` params (add `stream: true` yourself to stream). */
  async request(extras: RequestExtras = {}): Promise<AnthropicRequestParams> {
    refuseOpenRound(this.#state);
    const previous = this.#last;
    const r = await this.render();
    const diagnostics = this.#options.diagnostics ? { previousMessageId: this.#lastMessageId ?? null } : undefined;
    this.#pending = pendingOf(r, {
      previousHadTail: previous !== undefined && previous.tailStart < streamLength(previous),
      ...(diagnostics ? { diagnostics } : {}),
    });
    let params = toAnthropic(r, { ...this.#options.request, ...extras });
    // A paused turn goes back as is, last (after the tail), unmarked and not kept: the same bytes as `prepare`.
    if (this.#paused) params = { ...params, messages: [...params.messages, { role: 'assistant', content: [...this.#paused] as never }] };
    // Manual extended thinking: refused by Claude 4.7 and later (a typed error here instead of the API's 400). An open
    // tool loop whose assistant turn does not start with its thinking and holds none (a compaction took the loop's
    // first rounds) goes with thinking disabled, the API's remedy; one holding thinking elsewhere is refused here.
    refuseManualThinking(params.thinking, canonicalModelId(params.model));
    if (thinkingToDisable(params.thinking, params.messages, 0, true)) params = { ...params, thinking: { type: 'disabled' } };
    return diagnostics ? ({ ...params, diagnostics: { previous_message_id: diagnostics.previousMessageId } } as AnthropicRequestParams) : params;
  }

  /**
   * Records the model's response (an SDK `Message`, from `create` or a stream's
   * `finalMessage()`), and its usage against the render's plan.
   */
  recordResponse(message: Message): this {
    // Checked before its usage is recorded: a refused response changes nothing, and recording it again once fixed
    // counts the request once.
    refuseBlocks(message?.content, `${nextRoundPath(this.#state)}/response`, this.#api);
    const r = this.#last;
    if (r) this.#recordUsage(r, message);
    // stop_reason `pause_turn` (server tools): the docs say to send the content back as is to let the model
    // continue. It is held until the turn goes on, then recorded with the continuation as one response (the API
    // combines consecutive assistant turns), as `prepare` maps a loop that appends both.
    const paused = this.#paused;
    const content = paused ? [...paused, ...message.content] : message.content;
    if (message.stop_reason === 'pause_turn' && !content.some((b) => b.type === 'tool_use')) {
      this.#paused = content;
      return this;
    }
    this.#state = appendResponse(this.#state, paused ? { ...message, content } : message, this.#now());
    this.#paused = undefined;
    return this;
  }

  /** Appends tool results you ran yourself (and optional injected text). */
  recordToolResults(results: readonly ToolResultBlockParam[], injected: readonly (string | TextBlockParam)[] = []): this {
    refuseBlocks(results, `${nextRoundPath(this.#state, 0)}/results`, this.#api);
    this.#state = appendToolResults(this.#state, results, injected, this.#now());
    return this;
  }

  /** Runs the last response's tool calls through the tool cache (in parallel) and records the results. */
  async runTools(handlers = this.#options.handlers): Promise<PortableToolResultBlockParam[]> {
    const round = this.#state.turns.at(-1)?.rounds.at(-1);
    if (!round || round.open.length === 0) return [];
    const uses = round.response.map((b) => b.param).filter((p) => p.type === 'tool_use' && round.open.includes(p.id));
    const cache = this.#options.toolCache;
    // The notes that replace pruned, hidden and summarized payloads tell the model to call `recall`: without a
    // handler of your own, it is answered from this session's state (what recall(path) reads).
    const all: Readonly<Record<string, ToolRunner<never>>> =
      handlers?.[recallTool.name] === undefined ? { ...handlers, [recallTool.name]: this.#recallRunner } : handlers;
    let results: PortableToolResultBlockParam[];
    if (cache) {
      // The session's own recall reads its state and writes nothing: declared so, or the cache would count it
      // as a tool never registered, a write to everything (ToolCacheOptions.undeclared).
      if (all[recallTool.name] === this.#recallRunner && cache.policy(recallTool.name) === undefined) cache.register(recallTool.name, {});
      results = await cache.runToolUses(uses, all, { scope: this.#options.scope ?? 'default' });
    } else {
      results = await Promise.all(
        uses.map(async (u) => {
          const use = u as { id: string; name: string; input: unknown };
          const run = all[use.name] as ToolRunner<unknown> | undefined;
          if (!run) return { type: 'tool_result' as const, tool_use_id: use.id, content: `Error: no handler for tool "${use.name}"`, is_error: true };
          try {
            const out = await run(use.input, { callId: use.id });
            const result = typeof out === 'object' && out !== null && 'content' in out ? out : { content: out };
            const content = result.content as PortableToolResultBlockParam['content'] & {};
            // A ToolRunResult's isError is the tool saying it failed (as the tool cache reads it).
            return (result as { isError?: boolean }).isError === true
              ? { type: 'tool_result' as const, tool_use_id: use.id, content, is_error: true }
              : { type: 'tool_result' as const, tool_use_id: use.id, content };
          } catch (e) {
            return { type: 'tool_result' as const, tool_use_id: use.id, content: `Error: ${e instanceof Error ? e.message : String(e)}`, is_error: true };
          }
        }),
      );
    }
    // Content no tool_result can hold (a number, `{}`) is the handler's bug, not the tool failing: thrown to the
    // caller naming the tool, nothing recorded (the timeline's own check names only the block's path).
    const bad = results.find((r) => r.content !== undefined && typeof r.content !== 'string' && !Array.isArray(r.content));
    if (bad) {
      const name = (uses.find((u) => (u as { id?: unknown }).id === bad.tool_use_id) as { name?: string } | undefined)?.name;
      throw new InvalidOptionError(
        `handlers.${name}`,
        `returned ${describeValue(bad.content)} for call ${bad.tool_use_id}: a handler returns a string, an array of content blocks, or { content, isError }`,
        { value: bad.content },
      );
    }
    this.recordToolResults(results);
    return results;
  }

  /** Answers a `recall` call from the session's state: the payload byte-identical, or an error result saying why not. */
  readonly #recallRunner: ToolRunner<never> = (input) => {
    const { content, is_error } = handleRecall(input, { state: this.#state });
    // Blocks as the API takes them back in a tool_result (CachedContent's index signature does not name interfaces).
    const out = content as CachedContent;
    return is_error ? { content: out, isError: true } : out;
  };

  /** Hides a block in the editable zone (or defers it). */
  hide(path: BlockPath, options: Omit<HideOptions, 'now'> = {}): HideResult {
    const result = hideBlock(this.#state, path, { ...this.#options.render, ...options, now: this.#now() });
    this.#state = result.state;
    return result;
  }

  /** The original payload at a path, byte-identical. */
  recall(path: BlockPath) {
    return recall(this.#state, path);
  }

  /**
   * One step of the loop: render, call the model, record the response, and run
   * its tools when it asked for any. Returns the response.
   *
   * @param client any Anthropic Messages client: `Anthropic`, `AnthropicBedrock`,
   *   `AnthropicVertex` of any SDK version (structural, see {@link MessagesClient})
   * @param options `stream: true` streams (events and text deltas reach `onEvent` /
   *   `onText` as they arrive); `signal` cancels (nothing is recorded then)
   */
  async step<C extends MessagesClient>(client: C, extras: RequestExtras = {}, options: StepOptions = {}): Promise<MessageOf<C>> {
    assertClient(client, options.stream === true);
    if (options.stream) {
      const run = this.stream(client, extras, options);
      for await (const event of run) {
        options.onEvent?.(event);
        const text = textDelta(event);
        if (text !== undefined) options.onText?.(text);
      }
      return run.finalMessage();
    }
    const params = await this.request(extras);
    const message = await callCreate<Message>(client, params, options, anthropicHeaders({ profile: this.#profile }, params));
    // The client's own object, typed as its create says (recorded as cachepoint's Message).
    return (await this.#finish(message, options.signal)) as MessageOf<C>;
  }

  /**
   * Streams one step: iterate the returned object for the SDK's events as they
   * arrive (`textDeltas()` for just the text), then `finalMessage()` resolves once
   * the message is recorded exactly as {@link step} records it (and its tools ran).
   * Aborting `signal` cancels the request and records nothing.
   *
   * @example
   * const run = session.stream(client, { max_tokens: 4096 }, { signal });
   * for await (const text of run.textDeltas()) process.stdout.write(text);
   * const message = await run.finalMessage();
   */
  stream<C extends MessagesClient>(client: C, extras: RequestExtras = {}, options: CallOptions = {}): SessionStream<MessageOf<C>> {
    assertClient(client, true);
    let stream: MessageStreamLike | undefined;
    // abort() before the render resolved has no SDK stream to cancel yet: it cancels here, before anything is sent.
    const cancelled = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, cancelled.signal]) : cancelled.signal;
    const started = this.request(extras).then((params) => {
      signal.throwIfAborted();
      stream = callStream(client, params, { ...options, signal }, anthropicHeaders({ profile: this.#profile }, params));
      return stream;
    });
    // Held here too: a caller that cancels and never reads the stream or its finalMessage() must not crash Node with an
    // unhandled AbortError; the rejection still reaches whoever awaits the events or the final message.
    started.catch(() => undefined);
    let consumed = false;
    const events = async function* (): AsyncGenerator<StreamEventLike> {
      consumed = true;
      const s = await started;
      for await (const event of s) yield event as StreamEventLike;
    };
    let final: Promise<MessageOf<C>> | undefined;
    const finalMessage = (): Promise<MessageOf<C>> =>
      (final ??= (async () => {
        const s = await started;
        // Drain what the caller did not read, so the message is complete.
        if (!consumed) for await (const _ of s) void _;
        const message = (await s.finalMessage()) as Message;
        return (await this.#finish(message, signal)) as MessageOf<C>;
      })());
    return {
      [Symbol.asyncIterator]: () => events()[Symbol.asyncIterator](),
      textDeltas: async function* () {
        for await (const event of events()) {
          const text = textDelta(event);
          if (text !== undefined) yield text;
        }
      },
      finalMessage,
      abort: () => {
        cancelled.abort();
        stream?.abort?.();
      },
    };
  }

  async #finish(message: Message, signal: AbortSignal | undefined): Promise<Message> {
    signal?.throwIfAborted();
    this.recordResponse(message);
    if (message.stop_reason === 'tool_use') await this.runTools();
    return message;
  }

  #recordUsage(r: Rendered, message: Message): void {
    this.#calibration.observe(r.model, r.tokens.total, message.usage);
    const pending = this.#pending ?? pendingOf(r);
    this.#records.push(requestRecord(this.#records.length, pending, message.usage, this.#profile.prices, message));
    this.#pending = undefined;
    if (typeof message.id === 'string') this.#lastMessageId = message.id;
  }

  /** Cache figures per request and in total, with the tool cache's savings. */
  stats(): SessionStats {
    const cache = this.#options.toolCache;
    return {
      requests: [...this.#records],
      totals: totalsOf(this.#records, this.#profile.prices),
      calibration: this.#calibration.factor(this.#state.model),
      ...(cache ? { toolCache: cache.stats() } : {}),
    };
  }

  /** A printable table of {@link stats}. */
  formatStats(): string {
    const s = this.stats();
    const table = formatRequests(s.requests, s.totals);
    return s.toolCache ? `${table}\ntool cache:\n${formatStats(s.toolCache)}` : table;
  }
}

/** The keys of {@link SessionOptions} (with the timeline's): any other is a typo, refused. */
const SESSION_OPTION_KEYS = optionKeys<SessionOptions>({
  model: true,
  instructions: true,
  tools: true,
  skills: true,
  render: true,
  request: true,
  toolCache: true,
  handlers: true,
  scope: true,
  now: true,
  diagnostics: true,
});

/** A short description of a refused value for an error message. */
function describeValue(value: unknown): string {
  if (value === null || typeof value !== 'object') return `${typeof value === 'string' ? 'the string' : typeof value} ${String(value)}`;
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** A misspelled or missing option names itself here, not as a TypeError from inside the first render. */
function checkSessionOptions(options: SessionOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidOptionError('options', 'expected the Session options object', { value: options });
  refuseUnknownKeys(options, SESSION_OPTION_KEYS);
  if (typeof options.model !== 'string' || options.model.length === 0) {
    throw new InvalidOptionError('model', 'a model id is required (e.g. claude-sonnet-4-6)', { value: options.model });
  }
  const unsendable = unsendableModelId(options.model);
  if (unsendable) throw new InvalidOptionError('model', unsendable, { value: options.model });
  // By value, not truthiness: `diagnostics: 'yes'` would ask the API for diagnostics.
  if (options.diagnostics !== undefined && typeof options.diagnostics !== 'boolean') {
    throw new InvalidOptionError('diagnostics', `expected true or false, got ${JSON.stringify(options.diagnostics)}`, { value: options.diagnostics });
  }
  const unavailable = options.diagnostics === true ? diagnosticsUnavailable(options.model) : undefined;
  if (unavailable) throw new InvalidOptionError('diagnostics', unavailable, { value: true });
  if (!Array.isArray(options.instructions)) {
    throw new InvalidOptionError('instructions', 'required: an array of strings or text blocks (runtime instructions first, then agent/domain; [] for none)', {
      value: options.instructions,
    });
  }
}

/** The path of the current turn's next round (`ahead` 1), or of its last one (0). */
function nextRoundPath(state: TimelineState, ahead = 1): string {
  const turn = state.turns.at(-1);
  return `turns/${turn?.index ?? 0}/rounds/${(turn?.rounds.length ?? 0) + ahead}`;
}

/**
 * A request whose last round still has a tool_use without its tool_result (results recorded for some calls only, or a
 * response cut off by max_tokens inside its tool calls): the API refuses it ("`tool_use` ids were found without
 * `tool_result` blocks immediately after", its wording in anthropics/claude-code#1237, 2025-05-22).
 */
function refuseOpenRound(state: TimelineState): void {
  const turn = state.turns.at(-1);
  const round = turn?.rounds.at(-1);
  if (!turn || !round || round.open.length === 0) return;
  const open = round.open;
  throw new TimelineError(
    `turns/${turn.index}/rounds/${round.index}`,
    `tool_use ${open.join(', ')} ${open.length === 1 ? 'has' : 'have'} no tool_result, and the API refuses a request without one: record the results first (recordToolResults, or runTools)`,
  );
}

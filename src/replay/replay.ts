/**
 * Replays a session trace through the engine: render before every `assistant`
 * event (at the time of the event before it), then append it. Yields one
 * request per model call, exactly as `toAnthropic` produced it.
 */
import type { MessageCreateParamsNonStreaming, ToolResultBlockParam } from '../providers/anthropic-types.js';
import { DEFAULT_MODEL, resolveProfile } from '../models/profiles.js';
import { CachepointError, ContextOverflowError, HideRefusedError, PathNotFoundError, UnknownModelError } from '../errors.js';
import { TraceParseError } from '../trace/errors.js';
import { toAnthropic, type RequestExtras } from '../providers/anthropic.js';
import { hideBlock } from '../render/hide-block.js';
import { render } from '../render/render.js';
import type { Rendered, RenderOptions } from '../render/types.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../timeline/edit.js';
import { paths } from '../timeline/paths.js';
import type { TimelineState } from '../timeline/types.js';
import type { TraceEvent } from '../trace/types.js';
import type { ToolPolicy } from '../toolcache/policy.js';
import { payloadAsContent } from '../recall/recall-tool.js';
import { recall } from '../render/hide-block.js';
import { defaultTokenCache } from '../render/context.js';
import { RecallTracker, type ForcedRecall } from './recalls.js';
import { refusedMedia } from '../internal/block-rules.js';

/** Options of {@link replay}: render options plus how to read the trace. */
export interface ReplayOptions extends Omit<RenderOptions, 'now'> {
  /** Overrides the trace's model. */
  readonly model?: string;
  /** Extra request fields (max_tokens, thinking, …) for every request. */
  readonly extras?: RequestExtras;
  /**
   * Plain full-history requests (no prune, no compaction, hide events ignored):
   * the input the peer baselines place their markers on.
   */
  readonly plain?: boolean;
  /**
   * The trace's name (a file path) for messages: an event the engine refuses
   * becomes a {@link TraceParseError} at `source:line`.
   */
  readonly source?: string;
  /**
   * Where warnings go (an unknown model, a context overflow, a hide that names
   * nothing): default `process.emitWarning`. The replay goes on after a warning.
   */
  readonly onWarning?: (message: string, code: string) => void;
  /**
   * Forced recalls (see recalls.ts): before a response whose calls need a
   * payload this replay removed (pruned, hidden, compacted), insert the round
   * the agent would have needed: a `recall` call per payload, answered with the
   * payload byte-identical, and one extra request after it. Later requests
   * carry that round like any other; times after it shift by
   * {@link RECALL_ROUND_MS}. Default false (`replay` writes the trace's own
   * requests); `compareTrace` turns it on.
   */
  readonly recalls?: boolean;
  /** Tool policies by tool name (as given to the tool cache): their tags count as recall targets. */
  readonly toolPolicies?: Readonly<Record<string, ToolPolicy<never>>>;
}

/** How long an inserted recall round takes: the short recall response (time to first token + a few tokens) and the lookup. */
export const RECALL_ROUND_MS = 2_500;

/** One request of a replay (the `replay` CLI writes `{index, at, turn, round, request}` per line). */
export interface ReplayedRequest {
  readonly index: number;
  /** Request start, ms since epoch. */
  readonly at: number;
  readonly atIso: string;
  readonly turn: number;
  readonly round: number;
  readonly request: MessageCreateParamsNonStreaming;
  readonly rendered: Rendered;
  /**
   * Set on a request the trace does not have: the one after an inserted recall
   * round (the previous request was answered with these recall calls).
   */
  readonly forced?: readonly ForcedRecall[];
  /** Output tokens of the recall calls that preceded this request (with `forced`). */
  readonly recallOutputTokens?: number;
}

function stripDuration(block: ToolResultBlockParam & { duration_ms?: number }): ToolResultBlockParam {
  if (!('duration_ms' in block)) return block;
  const { duration_ms: _d, ...rest } = block;
  return rest;
}

/**
 * Replays a trace.
 *
 * @example
 * for await (const r of replay(readTrace('fixtures/coding.jsonl'))) console.log(r.index, r.rendered.plan.cost);
 */
export async function* replay(events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>, options: ReplayOptions = {}): AsyncGenerator<ReplayedRequest> {
  let state: TimelineState | undefined;
  let lastAt = 0;
  let lastIso = new Date(0).toISOString();
  let index = 0;
  // Only render options reach render(): the replay's own keys stay here.
  const { model: modelOverride, extras, plain, source, onWarning, recalls, toolPolicies, ...engine } = options;
  // Time the inserted recall rounds added: every later event happens that much later.
  let shift = 0;
  const tokens = options.tokens ?? defaultTokenCache();
  const tracker = recalls && !plain ? new RecallTracker(toolPolicies) : undefined;
  const warn = onWarning ?? ((message: string, code: string) => process.emitWarning(message, { code }));
  let renderOptions: RenderOptions = plain ? { ...engine, prune: { enabled: false }, compact: { enabled: false } } : engine;
  // A log is analysed as it was sent; a block the Messages API refuses is said, once per event (prepare refuses it).
  const refusedHere = (content: unknown, line: number) => {
    const refused = refusedMedia(content, renderOptions.profile?.provider);
    if (refused !== undefined)
      warn(`${where(source, line)}: ${refused}; replayed as sent, but the API answers such a request with a 400`, 'CACHEPOINT_REFUSED_MEDIA');
  };
  for await (const e of events) {
    // An event the format accepts but the engine refuses (a tool_result in the tail, an empty
    // instruction, …) is named by its line, like a format error.
    try {
      switch (e.type) {
        case 'envelope': {
          const input = { instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}) };
          const model = modelOverride ?? e.model ?? state?.model ?? DEFAULT_MODEL;
          renderOptions = withFallbackProfile(renderOptions, model, warn);
          state = state ? setEnvelope(state, { ...input, model }) : createTimeline({ ...input, model });
          break;
        }
        case 'user':
          refusedHere(e.content, e.line);
          state = startTurn(need(state), e.content, e.at + shift);
          break;
        case 'assistant': {
          const warnHere = (m: string, code: string) => warn(`${where(source, e.line)}: ${m}`, code);
          let r = renderOrOverflow(need(state), { ...renderOptions, now: lastAt }, warnHere);
          let at = lastAt;
          const forced = tracker?.needs(r.state, e.content) ?? [];
          yield { index: index++, at, atIso: lastIso, turn: r.turn, round: r.round, request: toAnthropic(r, extras), rendered: r };
          if (forced.length > 0) {
            // That request is answered with recall calls; their results go back, then the extra request.
            const calls = forced.map((f, k) => ({ type: 'tool_use' as const, id: `toolu_recall_${index}_${k}`, name: 'recall', input: { path: f.path } }));
            const outputTokens = calls.reduce((n, c) => n + tokens.tokens(c), 0);
            let s = appendResponse(r.state, calls, at + RECALL_ROUND_MS / 2);
            s = appendToolResults(
              s,
              calls.map((c, k) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: payloadAsContent(recall(s, forced[k]!.path)) })),
              [],
              at + RECALL_ROUND_MS,
            );
            const turn = s.turns.at(-1)!;
            const round = turn.rounds.at(-1)!;
            forced.forEach((f, k) => {
              tracker!.recalled(f.path, paths.result(turn.index, round.index, calls[k]!.id));
            });
            shift += RECALL_ROUND_MS;
            at += RECALL_ROUND_MS;
            r = renderOrOverflow(s, { ...renderOptions, now: at }, warnHere);
            const atIso = new Date(at).toISOString();
            yield {
              index: index++,
              at,
              atIso,
              turn: r.turn,
              round: r.round,
              request: toAnthropic(r, extras),
              rendered: r,
              forced,
              recallOutputTokens: outputTokens,
            };
          }
          state = appendResponse(r.state, e.content, e.at + shift);
          break;
        }
        case 'tool_results': {
          const results = e.content.filter((b) => b.type === 'tool_result').map((b) => stripDuration(b as ToolResultBlockParam));
          refusedHere(e.content, e.line);
          const texts = e.content.filter((b) => b.type === 'text');
          state = appendToolResults(need(state), results, texts as never, e.at + shift);
          break;
        }
        case 'tail':
          refusedHere(e.content, e.line);
          state = setTail(need(state), e.content);
          break;
        case 'hide': {
          if (plain) break;
          const s = need(state);
          const path = e.path ?? hidePathFor(s, e.tool_use_id!);
          if (!path) break;
          try {
            state = hideBlock(s, path, { ...renderOptions, now: lastAt, defer: true, ...(e.note ? { note: e.note } : {}) }).state;
          } catch (err) {
            // The agent asked to hide something the engine cannot hide: it stays visible, the session goes on.
            if (!(err instanceof HideRefusedError || err instanceof PathNotFoundError)) throw err;
            warn(`${where(source, e.line)}: hide skipped: ${err.message}`, 'CACHEPOINT_HIDE_SKIPPED');
          }
          break;
        }
      }
    } catch (err) {
      if (err instanceof CachepointError && !(err instanceof TraceParseError)) {
        throw new TraceParseError('engine_rejected', `${e.type} event refused by the engine: ${err.message}`, { file: source, line: e.line }, err);
      }
      throw err;
    }
    if ('at' in e && typeof e.at === 'number') {
      lastAt = e.at + shift;
      lastIso = shift === 0 ? (e.atIso ?? new Date(e.at).toISOString()) : new Date(lastAt).toISOString();
    }
  }
}

/**
 * A trace from a model the profile table does not know still replays: its
 * requests keep the model id, and thresholds and prices use the default
 * model's figures (with a warning), rather than failing the whole replay.
 */
const warned = new Set<string>();

function withFallbackProfile(options: RenderOptions, model: string, warn: (message: string, code: string) => void): RenderOptions {
  if (options.profile) return options;
  try {
    resolveProfile(model, options.profiles);
    return options;
  } catch (err) {
    if (!(err instanceof UnknownModelError)) throw err;
    if (!warned.has(model)) {
      warned.add(model);
      const hint = err.hint ? ` ${err.hint}` : '';
      warn(`model "${model}" has no profile; using ${DEFAULT_MODEL}'s figures (pass --model or a custom profile).${hint}`, 'CACHEPOINT_UNKNOWN_MODEL');
    }
    return { ...options, profiles: { ...options.profiles, [model]: { ...resolveProfile(DEFAULT_MODEL), id: model } } };
  }
}

/**
 * A recorded session went through, so a replay renders every request: when
 * even the envelope plus the newest round exceed the window (a single result
 * bigger than the window), the request is rendered without compaction, with a
 * warning, instead of ending the replay.
 */
function renderOrOverflow(state: TimelineState, options: RenderOptions, warn: (message: string, code: string) => void): Rendered {
  try {
    return render(state, options);
  } catch (err) {
    if (!(err instanceof ContextOverflowError)) throw err;
    warn(`${err.message} Rendered without compaction.`, 'CACHEPOINT_CONTEXT_OVERFLOW');
    return render(state, { ...options, compact: { ...options.compact, enabled: false } });
  }
}

function where(source: string | undefined, line: number): string {
  return source === undefined ? `line ${line}` : `${source}:${line}`;
}

/** The result path of a tool_use id (searching from the newest turn). */
function hidePathFor(state: TimelineState, toolUseId: string): string | undefined {
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    for (const round of turn.rounds) {
      if (round.results.some((b) => b.id === toolUseId)) return paths.result(turn.index, round.index, toolUseId);
    }
  }
  return undefined;
}

function need(state: TimelineState | undefined): TimelineState {
  if (!state) throw new Error('trace: an event came before the envelope (the reader enforces this; was the trace validated?)');
  return state;
}

/** Collects a whole replay into an array. */
export async function replayAll(events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>, options: ReplayOptions = {}): Promise<ReplayedRequest[]> {
  const out: ReplayedRequest[] = [];
  for await (const r of replay(events, options)) out.push(r);
  return out;
}

/**
 * A trace fed through `prepare` the way a plain loop would send it: its own
 * system and tools (no markers), the whole message history ending with the
 * user side, the trace's tail as `options.tail`, and each hide event as the
 * next request's `options.hide` (deferred when outside the editable zone, as
 * the replay does). Used by the differential test and the judge's sweep to
 * check that the door renders the Session path's bytes.
 *
 * With `disturb`, the loop meets what real loops meet: the stored conversation
 * lost (deleted, dropped by the store's idle expiry on the trace's clock, the
 * store down so `prepare` falls back to the messages alone), a request retried
 * (the same messages again), a history cut back to the turn's start and then
 * resumed. Every request sent, the extra ones included, goes to `onSent`.
 */
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type HideRequest, type PreparePlan } from '../../src/conversation/prepare.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import { stripCacheControl } from '../../src/providers/anthropic.js';
import type { RenderOptions } from '../../src/render/types.js';
import type { TraceEvent } from '../../src/trace/types.js';

/** What happens to a plain loop on its way (request indexes are the trace's, from 0). */
export interface LoopDisturbance {
  /** Before these requests the stored conversation is deleted (`store.delete`). */
  readonly deleteBefore?: readonly number[];
  /** The store drops a conversation not loaded or saved for this long (ms, on the trace's clock). */
  readonly idleMs?: number;
  /** The store fails (load and save throw) for these requests: `prepare` renders from the messages alone. */
  readonly storeDownAt?: readonly number[];
  /** These requests are sent twice: the loop retries with the same messages (a dropped response). */
  readonly retryAt?: readonly number[];
  /**
   * Before these requests the loop rewinds to the start of the current turn: it sends the history cut back to the
   * turn's user message (fewer messages than stored: a truncated history), then goes on with the whole history.
   */
  readonly rewindAt?: readonly number[];
}

/** One request the loop sent. */
export interface SentRequest {
  /** The trace's request it belongs to. */
  readonly index: number;
  readonly kind: 'request' | 'retry' | 'rewind';
  readonly at: number;
  readonly params: MessageCreateParamsNonStreaming;
  readonly plan: PreparePlan;
}

/** A store that throws while `down()` says so (a Redis that is unreachable for a while). */
class FlakyStore implements ConversationStore {
  readonly #inner: ConversationStore;
  readonly #down: () => boolean;
  constructor(inner: ConversationStore, down: () => boolean) {
    this.#inner = inner;
    this.#down = down;
  }
  load(id: string): Promise<ConversationRecord | undefined> {
    return this.#down() ? Promise.reject(new Error('store down (judge: simulated outage)')) : this.#inner.load(id);
  }
  save(record: ConversationRecord, expected: number | null): Promise<void> {
    return this.#down() ? Promise.reject(new Error('store down (judge: simulated outage)')) : this.#inner.save(record, expected);
  }
  delete(id: string): Promise<void> {
    return this.#inner.delete(id);
  }
}

function withoutDuration(b: object): object {
  if (!('duration_ms' in b)) return b;
  const { duration_ms: _d, ...rest } = b as { duration_ms: number };
  return rest;
}

/**
 * The params and plan `prepare` returns before each assistant event. `sessionPath` is the Session path's
 * request for each (its model, and its system and tools without markers, are what the loop sends).
 */
export async function throughPrepare(
  events: readonly TraceEvent[],
  sessionPath: readonly { readonly request: MessageCreateParamsNonStreaming }[],
  options: {
    readonly conversationId: string;
    readonly render?: Omit<RenderOptions, 'now' | 'tokenFactor'>;
    readonly disturb?: LoopDisturbance;
    /**
     * The conversation store (default: a memory store, which keeps no process copy: src/conversation/local-copy.ts).
     * Not with `disturb.idleMs`, which needs the memory store's clock.
     */
    readonly store?: ConversationStore;
    /** Receives every request sent, in order (the retries and regenerations too). */
    readonly onSent?: (r: SentRequest) => void;
  },
): Promise<{ params: unknown; plan: PreparePlan }[]> {
  const d = options.disturb ?? {};
  let clock = 0;
  let down = false;
  if (options.store && d.idleMs !== undefined) throw new Error('disturb.idleMs needs the memory store');
  const inner = options.store ?? new MemoryConversationStore(d.idleMs !== undefined ? { idleMs: d.idleMs, now: () => clock } : {});
  const store: ConversationStore = d.storeDownAt?.length ? new FlakyStore(inner, () => down) : inner;
  const messages: MessageParam[] = [];
  const out: { params: unknown; plan: PreparePlan }[] = [];
  let tail: MessageParam['content'] | undefined;
  let lastAt = 0;
  let envelope: Pick<MessageCreateParamsNonStreaming, 'system' | 'tools'> | undefined;
  let hide: HideRequest[] = [];
  /** How many messages the current turn's first request had (what a rewind sends again). */
  let turnStart = 0;
  for (const e of events) {
    if (e.type === 'envelope') envelope = undefined;
    else if (e.type === 'hide') hide.push({ ...(e.path ? { path: e.path } : { toolUseId: e.tool_use_id! }), ...(e.note ? { note: e.note } : {}), defer: true });
    else if (e.type === 'user') {
      messages.push({ role: 'user', content: e.content as MessageParam['content'] });
      turnStart = messages.length;
    } else if (e.type === 'tail') tail = e.content as MessageParam['content'];
    else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result').map((b) => withoutDuration(b) as ToolResultBlockParam);
      const texts = e.content.filter((b) => b.type === 'text') as TextBlockParam[];
      messages.push({ role: 'user', content: [...results, ...texts] });
    } else if (e.type === 'assistant') {
      const index = out.length;
      const want = sessionPath[index];
      if (!want) throw new Error(`request ${index}: the Session path has no such request`);
      // What a plain loop sends: its own system and tools (no markers), the whole history.
      if (!envelope) {
        const { system, tools } = stripCacheControl({ system: want.request.system, tools: want.request.tools });
        envelope = { ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
      }
      const send = async (history: MessageParam[], at: number, kind: SentRequest['kind'], hides: HideRequest[]) => {
        clock = at;
        down = d.storeDownAt?.includes(index) ?? false;
        const { params, plan } = await prepare(
          { model: want.request.model, max_tokens: 2048, ...envelope, messages: [...history] },
          {
            conversationId: options.conversationId,
            store,
            now: at,
            ...(options.render ? { render: options.render } : {}),
            ...(tail !== undefined ? { tail: tail as never } : {}),
            ...(hides.length > 0 ? { hide: hides } : {}),
          },
        );
        options.onSent?.({ index, kind, at, params: params as MessageCreateParamsNonStreaming, plan });
        return { params, plan };
      };
      if (d.deleteBefore?.includes(index)) await inner.delete(options.conversationId);
      if (d.rewindAt?.includes(index) && messages.length > turnStart) await send(messages.slice(0, turnStart), lastAt, 'rewind', []);
      let sent = await send(messages, lastAt, 'request', hide);
      // A retry repeats the call: the same messages and hides (a hide already applied is a no-op; the first send's
      // is lost when the store was down, and the retry applies it again).
      if (d.retryAt?.includes(index)) sent = await send(messages, lastAt, 'retry', hide);
      hide = [];
      out.push(sent);
      messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return out;
}

/**
 * A trace fed through `prepare` the way a plain loop would send it: its own
 * system and tools (no markers), the whole message history ending with the
 * user side, the trace's tail as `options.tail`, and each hide event as the
 * next request's `options.hide` (deferred when outside the editable zone, as
 * the replay does). Used by the differential test and the judge's sweep to
 * check that the door renders the Session path's bytes.
 */
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type HideRequest, type PreparePlan } from '../../src/conversation/prepare.js';
import { stripCacheControl } from '../../src/providers/anthropic.js';
import type { RenderOptions } from '../../src/render/types.js';
import type { TraceEvent } from '../../src/trace/types.js';

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
  options: { readonly conversationId: string; readonly render?: Omit<RenderOptions, 'now' | 'tokenFactor'> },
): Promise<{ params: unknown; plan: PreparePlan }[]> {
  const store = new MemoryConversationStore();
  const messages: MessageParam[] = [];
  const out: { params: unknown; plan: PreparePlan }[] = [];
  let tail: MessageParam['content'] | undefined;
  let lastAt = 0;
  let envelope: Pick<MessageCreateParamsNonStreaming, 'system' | 'tools'> | undefined;
  let hide: HideRequest[] = [];
  for (const e of events) {
    if (e.type === 'envelope') envelope = undefined;
    else if (e.type === 'hide') hide.push({ ...(e.path ? { path: e.path } : { toolUseId: e.tool_use_id! }), ...(e.note ? { note: e.note } : {}), defer: true });
    else if (e.type === 'user') messages.push({ role: 'user', content: e.content as MessageParam['content'] });
    else if (e.type === 'tail') tail = e.content as MessageParam['content'];
    else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result').map((b) => withoutDuration(b) as ToolResultBlockParam);
      const texts = e.content.filter((b) => b.type === 'text') as TextBlockParam[];
      messages.push({ role: 'user', content: [...results, ...texts] });
    } else if (e.type === 'assistant') {
      const want = sessionPath[out.length];
      if (!want) throw new Error(`request ${out.length}: the Session path has no such request`);
      // What a plain loop sends: its own system and tools (no markers), the whole history.
      if (!envelope) {
        const { system, tools } = stripCacheControl({ system: want.request.system, tools: want.request.tools });
        envelope = { ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
      }
      const { params, plan } = await prepare(
        { model: want.request.model, max_tokens: 2048, ...envelope, messages: [...messages] },
        {
          conversationId: options.conversationId,
          store,
          now: lastAt,
          ...(options.render ? { render: options.render } : {}),
          ...(tail !== undefined ? { tail: tail as never } : {}),
          ...(hide.length > 0 ? { hide } : {}),
        },
      );
      hide = [];
      out.push({ params, plan });
      messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return out;
}

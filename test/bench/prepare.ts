/**
 * `prepare` per request against `render` + `toAnthropic` on the same session
 * (issue 10: ≤ 1.2×, i.e. the message mapping is incremental, not a rebuild).
 * Both sides replay each fixture request by request from scratch, alternating,
 * in the same process; the ratio of their summed times is reported.
 */
import type { MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { stripCacheControl, toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { fixtureTexts, parseFixture, sig, times, type Row } from './util.js';

const FIXTURES = ['coding', 'research', 'long-idle', 'volatile-tail'];

/** The Session path: timeline edits, then render + toAnthropic timed per request. */
function viaRender(events: readonly TraceEvent[]): { ns: number; envelopes: { system: unknown; tools: unknown }[] } {
  let state: TimelineState | undefined;
  let lastAt = 0;
  let ns = 0;
  const envelopes: { system: unknown; tools: unknown }[] = [];
  for (const e of events) {
    if (e.type === 'envelope') {
      const input = { instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}) };
      const model = e.model ?? state?.model ?? 'claude-sonnet-4-6';
      state = state ? setEnvelope(state, { ...input, model }) : createTimeline({ ...input, model });
    } else if (e.type === 'user') state = startTurn(state!, e.content, e.at);
    else if (e.type === 'tail') state = setTail(state!, e.content);
    else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result').map((b) => strip(b) as ToolResultBlockParam);
      state = appendToolResults(state!, results, e.content.filter((b) => b.type === 'text') as TextBlockParam[], e.at);
    } else if (e.type === 'assistant') {
      const t0 = process.hrtime.bigint();
      const r = render(state!, { now: lastAt });
      const params = toAnthropic(r, { max_tokens: 2048 });
      ns += Number(process.hrtime.bigint() - t0);
      envelopes.push(stripCacheControl({ system: params.system, tools: params.tools }));
      state = appendResponse(r.state, e.content, e.at);
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return { ns, envelopes };
}

function strip(b: object): object {
  if (!('duration_ms' in b)) return b;
  const { duration_ms: _d, ...rest } = b as { duration_ms: number };
  return rest;
}

/** The drop-in path: a plain loop's messages array, prepare() timed per request. */
async function viaPrepare(events: readonly TraceEvent[], envelopes: readonly { system: unknown; tools: unknown }[], model: string): Promise<number> {
  const store = new MemoryConversationStore();
  const messages: MessageParam[] = [];
  let tail: string | TextBlockParam[] | undefined;
  let lastAt = 0;
  let k = 0;
  let ns = 0;
  for (const e of events) {
    if (e.type === 'user') messages.push({ role: 'user', content: e.content as MessageParam['content'] });
    else if (e.type === 'tail') tail = e.content as TextBlockParam[];
    else if (e.type === 'tool_results') {
      messages.push({
        role: 'user',
        content: [...e.content.filter((b) => b.type === 'tool_result').map(strip), ...e.content.filter((b) => b.type === 'text')] as MessageParam['content'],
      });
    } else if (e.type === 'assistant') {
      const env = envelopes[k++]!;
      const params = {
        model,
        max_tokens: 2048,
        ...(env.system ? { system: env.system as TextBlockParam[] } : {}),
        ...(env.tools ? { tools: env.tools as never } : {}),
        messages,
      };
      const t0 = process.hrtime.bigint();
      await prepare(params, { conversationId: 'bench', store, now: lastAt, ...(tail !== undefined ? { tail } : {}) });
      ns += Number(process.hrtime.bigint() - t0);
      messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return ns;
}

export default async function (): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { name, text } of fixtureTexts().filter((f) => FIXTURES.includes(f.name.replace(/\.jsonl$/, '')))) {
    const events = parseFixture(text, name).filter((e) => e.type !== 'hide');
    const model = (events.find((e) => e.type === 'envelope') as { model?: string } | undefined)?.model ?? 'claude-sonnet-4-6';
    const requests = events.filter((e) => e.type === 'assistant').length;
    let renderNs = 0;
    let prepareNs = 0;
    // Warm-up pass each, then three alternating measured passes.
    const warm = viaRender(events);
    await viaPrepare(events, warm.envelopes, model);
    for (let pass = 0; pass < 3; pass++) {
      const r = viaRender(events);
      renderNs += r.ns;
      prepareNs += await viaPrepare(events, r.envelopes, model);
    }
    rows.push({
      name: `${name}: prepare per request (${requests} requests)`,
      value: sig(prepareNs / 3 / requests / 1000),
      unit: 'µs',
      baseline: `${times(prepareNs / renderNs)} render + toAnthropic (${sig(renderNs / 3 / requests / 1000)} µs); target ≤ ×1.2`,
    });
  }
  return rows;
}

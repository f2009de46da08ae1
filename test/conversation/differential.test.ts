/**
 * Differential: on every fixture, `prepare` over the plain message arrays a
 * loop would send produces byte-identical requests to the Session path (the
 * engine's own replay of the trace: the same timeline edits Session makes).
 * Hide events (the agent asked to hide a tool result) go to the next request's
 * `options.hide`, deferred when outside the editable zone, as the replay does.
 * The import samples (fixtures/import: a proxy log and a Claude Code transcript, through `cachepoint import`'s
 * importers) too: their blocks are shaped as a real loop's, and every request must pass the block rules the doors
 * check (a false refusal there would break a working loop).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type HideRequest } from '../../src/conversation/prepare.js';
import { stripCacheControl } from '../../src/providers/anthropic.js';
import { replay } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { readFileSync } from 'node:fs';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';

/** [name, trace text]: every fixture, then each trace of each import sample. */
const FIXTURES: [string, string][] = [
  ...readdirSync('fixtures')
    .filter((f) => f.endsWith('.jsonl'))
    .map((f): [string, string] => [f, readFileSync(`fixtures/${f}`, 'utf8')]),
  ...readdirSync('fixtures/import').flatMap((f) =>
    importLog(readFileSync(`fixtures/import/${f}`, 'utf8'), f).traces.map((t, i): [string, string] => [`import/${f}#${i}`, formatImported(t)]),
  ),
];

function withoutDuration(b: object): object {
  if (!('duration_ms' in b)) return b;
  const { duration_ms: _d, ...rest } = b as { duration_ms: number };
  return rest;
}

describe('prepare ≡ Session path, byte for byte', () => {
  for (const [file, text] of FIXTURES) {
    it(file, async () => {
      const events: TraceEvent[] = parseTrace(text, file);
      const expected = [];
      for await (const r of replay(events, { extras: { max_tokens: 2048 } })) expected.push(r);

      const store = new MemoryConversationStore();
      const messages: MessageParam[] = [];
      let tail: MessageParam['content'] | undefined;
      let lastAt = 0;
      let k = 0;
      let envelope: Pick<MessageCreateParamsNonStreaming, 'system' | 'tools'> | undefined;
      let hide: HideRequest[] = [];
      let hidden = 0;
      for (const e of events) {
        if (e.type === 'envelope') envelope = undefined;
        else if (e.type === 'hide')
          hide.push({ ...(e.path ? { path: e.path } : { toolUseId: e.tool_use_id! }), ...(e.note ? { note: e.note } : {}), defer: true });
        else if (e.type === 'user') messages.push({ role: 'user', content: e.content as MessageParam['content'] });
        else if (e.type === 'tail') tail = e.content as MessageParam['content'];
        else if (e.type === 'tool_results') {
          const results = e.content.filter((b) => b.type === 'tool_result').map((b) => withoutDuration(b) as ToolResultBlockParam);
          const texts = e.content.filter((b) => b.type === 'text') as TextBlockParam[];
          messages.push({ role: 'user', content: [...results, ...texts] });
        } else if (e.type === 'assistant') {
          const want = expected[k++]!;
          // What a plain loop sends: its own system and tools (no markers), the whole history.
          if (!envelope) {
            const { system, tools } = stripCacheControl({ system: want.request.system, tools: want.request.tools });
            envelope = { ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
          }
          const { params, plan } = await prepare(
            { model: want.request.model, max_tokens: 2048, ...envelope, messages: [...messages] },
            { conversationId: file, store, now: lastAt, ...(tail !== undefined ? { tail: tail as never } : {}), ...(hide.length > 0 ? { hide } : {}) },
          );
          hidden += plan.hides?.length ?? 0;
          hide = [];
          expect(JSON.stringify(params), `${file} request ${k - 1}`).toBe(JSON.stringify(want.request));
          expect(plan.resync === undefined || plan.resync.reason.endsWith('_changed')).toBe(true);
          messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
        }
        if ('at' in e && typeof e.at === 'number') lastAt = e.at;
      }
      expect(k).toBe(expected.length);
      expect(hidden).toBe(events.filter((e) => e.type === 'hide').length);
    });
  }
});

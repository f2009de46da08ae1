/**
 * A request prepared without the conversation's stored state (the store is
 * down, the process is new, the record was evicted) does not know whether the
 * provider's cache is warm. It must not prune then: pruning while the cache is
 * warm re-writes everything after the first note, and with no state to make the
 * decision sticky it happens again on the next request, and the next.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { INSTRUCTIONS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const down: ConversationStore = {
  load: () => Promise.reject(new Error('ECONNREFUSED')),
  save: () => Promise.reject(new Error('ECONNREFUSED')),
  delete: () => Promise.reject(new Error('ECONNREFUSED')),
};

// One-shot lookups (a search's results are not needed again): what pruning takes first once the cache is cold.
const SEARCH = {
  name: 'Search',
  description: 'Searches the documentation.',
  input_schema: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] },
};

function script(turns: number, rounds: number): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= turns; t++) {
    for (let r = 1; r <= rounds; r++) out.push([{ type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Search', input: { query: `topic ${t}.${r}` } }]);
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out;
}

describe('prepare without the stored state', () => {
  it.each([
    ['the store is down', () => down],
    ['every request on a new process (a store of its own)', () => new MemoryConversationStore()],
  ])('prunes nothing while the cache may be warm: every request reads all the previous one read and wrote (%s)', async (_, storeOf) => {
    const clock = { now: 1_000_000 };
    server = await startFakeServer({ script: script(5, 3), now: () => clock.now });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const shared = new MemoryConversationStore();
    const messages: Anthropic.MessageParam[] = [];
    for (let t = 1; t <= 5; t++) {
      messages.push({ role: 'user', content: `Task ${t}: fix the tests.` });
      for (;;) {
        clock.now += 3_000; // a loop: seconds apart, the cache stays warm
        // The first two turns with the conversation's store; then each request without it.
        const store = t <= 2 ? shared : storeOf();
        const { params } = await prepare(
          { model: 'claude-sonnet-4-6', max_tokens: 256, system: INSTRUCTIONS.join('\n\n'), tools: [SEARCH], messages },
          { conversationId: 'c', store, now: clock.now },
        );
        const message = await client.messages.create(params);
        messages.push({ role: 'assistant', content: message.content });
        if (message.stop_reason !== 'tool_use') break;
        const results = message.content.flatMap((b) =>
          b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: text(b.id, 10_000) }] : [],
        );
        messages.push({ role: 'user', content: results });
      }
    }
    const usage = server.requests.map((r) => (r.response as Anthropic.Message).usage);
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    for (let i = 1; i < usage.length; i++) {
      const before = usage[i - 1]!;
      // No tail, no prefill: a request that only appended reads the whole previous request.
      expect(usage[i]!.cache_read_input_tokens, `request ${i}`).toBeGreaterThanOrEqual(
        (before.cache_read_input_tokens ?? 0) + (before.cache_creation_input_tokens ?? 0),
      );
    }
  });
});

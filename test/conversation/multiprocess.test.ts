/**
 * One conversation, two processes: the requests of a 3-turn / 12-round
 * existing-style loop alternate between two workers that share a Redis
 * conversation store. Every request after the first reads the previous one's
 * cache entries (the fake server's usage, from the bytes it received), and
 * the bytes equal a single-process run kept in memory.
 */
import { fileURLToPath } from 'node:url';
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';
import { spawnRpcWorker } from '../helpers/worker.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';

const WORKER = fileURLToPath(new URL('./fixtures/prepare-worker.ts', import.meta.url));

interface Worker {
  readonly pid: number;
  step(
    conversationId: string,
    messages: Anthropic.MessageParam[],
    now: number,
  ): Promise<{ pid: number; message: Anthropic.Message; revision: number; resync: unknown }>;
  stop(): Promise<void>;
}

async function spawnWorker(init: object): Promise<Worker> {
  const w = await spawnRpcWorker(WORKER, init);
  return {
    pid: w.pid,
    step: (conversationId, messages, now) => w.call({ op: 'step', conversationId, messages, now }),
    stop: () => w.stop(),
  };
}

/** Turn t: 3 tool rounds, then a final answer: 12 requests over 3 turns. */
function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= 3; t++) {
    for (let r = 1; r <= 3; r++) {
      out.push([
        { type: 'thinking', thinking: `Turn ${t}, step ${r}.`, signature: `sig-${t}-${r}` },
        { type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/mod-${r}.ts` } },
      ]);
    }
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out;
}

let redis: { readonly url: string; release(): Promise<void> };
let server: FakeMessagesServer;
let clock = 1_000_000;
const workers: Worker[] = [];
beforeAll(async () => {
  redis = await sharedRedis();
  server = await startFakeServer({ script: script(), now: () => clock });
  const init = { redis: redis.url, namespace: uniqueNamespace('conv-mp'), api: server.url };
  workers.push(await spawnWorker(init), await spawnWorker(init));
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await server?.close();
  await redis?.release();
});

describe('prepare across processes (shared Redis conversation store)', () => {
  it('alternates 12 requests of one conversation between two workers; each reads what the previous wrote', async () => {
    const messages: Anthropic.MessageParam[] = [];
    const served: { pid: number; revision: number; resync: unknown }[] = [];
    let k = 0;
    for (let t = 1; t <= 3; t++) {
      messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
      for (;;) {
        clock += 3_000;
        const { message, ...info } = await workers[k++ % 2]!.step('shared', [...messages], clock);
        served.push(info);
        messages.push({ role: 'assistant', content: message.content });
        if (message.stop_reason !== 'tool_use') break;
        const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
        messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: text(u.id, 1200) })) });
      }
    }
    const requests = server.requests.filter((r) => r.path === '/v1/messages');
    expect(requests).toHaveLength(12);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    // Alternating processes, one conversation, revisions strictly increasing (prepare + recordUsage each).
    expect(new Set(served.map((s) => s.pid)).size).toBe(2);
    expect(served.map((s) => s.revision)).toEqual(served.map((_, i) => 2 * i + 1));
    expect(served.every((s) => s.resync === null)).toBe(true);
    const usage = requests.map((r) => (r.response as Anthropic.Message).usage);
    expect(usage[0]!.cache_read_input_tokens).toBe(0);
    for (const [i, u] of usage.entries()) if (i > 0) expect(u.cache_read_input_tokens, `request ${i}`).toBeGreaterThan(0);
    for (const r of requests) expect(JSON.stringify(r.body).split('"cache_control"').length - 1).toBeLessThanOrEqual(4);

    // The same loop in one process, kept in memory, sends the same bytes (tails name the worker: compare without them).
    const memory = new MemoryConversationStore();
    const bodies = requests.map((r) => r.body as Anthropic.MessageCreateParams);
    for (const [i, body] of bodies.entries()) {
      const history = body.messages.length;
      const sent = messagesOf(messages, i);
      expect(sent.length).toBeGreaterThan(0);
      const { params } = await prepare(
        { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS, messages: sent },
        { conversationId: 'one-process', store: memory, now: requests[i]!.at, tail: tailOf(body) },
      );
      expect(params.messages.length).toBe(history);
      expect(JSON.stringify(params), `request ${i}`).toBe(JSON.stringify(body));
    }
  }, 120_000);
});

/** The messages the loop had sent for request i: user/tool-result messages close each request. */
function messagesOf(all: readonly Anthropic.MessageParam[], i: number): Anthropic.MessageParam[] {
  let requests = -1;
  for (let n = 0; n < all.length; n++) {
    if (all[n]!.role === 'user' && ++requests === i) return all.slice(0, n + 1);
  }
  return [];
}

function tailOf(body: Anthropic.MessageCreateParams): string {
  const last = body.messages.at(-1)!.content as Anthropic.TextBlockParam[];
  return last.at(-1)!.text;
}

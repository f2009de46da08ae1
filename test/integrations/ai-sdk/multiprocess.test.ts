/**
 * A conversation survives a second process: the turns of one `generateText`
 * conversation alternate between two worker processes (A, B, A) that share a
 * Redis conversation store. Each worker picks up the stored state where the
 * other left it (no resync, revisions continue), so its first request of the
 * turn reads the cache the other process's requests wrote.
 */
import { fileURLToPath } from 'node:url';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { sharedRedis, uniqueNamespace } from '../../toolcache/redis-fixtures/server.js';
import { spawnRpcWorker } from '../../helpers/worker.js';
import { script } from './harness.js';

const WORKER = fileURLToPath(new URL('./fixtures/ai-sdk-worker.ts', import.meta.url));

interface TurnResult {
  readonly pid: number;
  readonly messages: ModelMessage[];
  readonly plans: { revision: number | null; resync: string | null; appended: number }[];
  readonly warnings: string[];
}

interface Worker {
  turn(conversationId: string, messages: ModelMessage[]): Promise<TurnResult>;
  stop(): Promise<void>;
}

async function spawnWorker(init: object): Promise<Worker> {
  const w = await spawnRpcWorker(WORKER, init);
  return {
    turn: (conversationId, messages) => w.call<TurnResult>({ op: 'turn', conversationId, messages }),
    stop: () => w.stop(),
  };
}

let redis: { readonly url: string; release(): Promise<void> };
let server: FakeMessagesServer;
const workers: Worker[] = [];
beforeAll(async () => {
  redis = await sharedRedis();
  server = await startFakeServer({ script: script(3, 3) });
  const init = { redis: redis.url, namespace: uniqueNamespace('aisdk-mp'), api: server.url };
  workers.push(await spawnWorker(init), await spawnWorker(init));
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await server?.close();
  await redis?.release();
});

describe('cachepointMiddleware across processes (shared Redis conversation store)', () => {
  it('turns alternate between two workers; each continues the stored conversation and reads the other’s cache', async () => {
    const messages: ModelMessage[] = [];
    const turns: TurnResult[] = [];
    for (let t = 1; t <= 3; t++) {
      messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
      const r = await workers[(t - 1) % 2]!.turn('shared-chat', [...messages]);
      turns.push(r);
      messages.push(...r.messages);
    }
    expect(new Set(turns.map((t) => t.pid)).size).toBe(2);
    expect(turns.flatMap((t) => t.warnings)).toEqual([]);
    const plans = turns.flatMap((t) => t.plans);
    expect(plans).toHaveLength(12);
    // One conversation: prepare and recordUsage each save a revision, whichever process runs them; never a resync.
    expect(plans.map((p) => p.revision)).toEqual(plans.map((_, i) => 2 * i + 1));
    expect(plans.map((p) => p.resync)).toEqual(plans.map(() => null));
    // Incremental: the first request of turns 2 and 3 maps only what the other process's turn added.
    expect(plans[4]!.appended).toBeLessThan(messages.length);

    const requests = server.requests.filter((r) => r.path === '/v1/messages');
    expect(requests).toHaveLength(12);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const usage = requests.map((r) => (r.response as Message).usage);
    for (const [i, u] of usage.entries()) if (i > 0) expect(u.cache_read_input_tokens, `request ${i}`).toBeGreaterThan(0);
    // The first request on the other process reads everything the previous turn's last request wrote or read.
    for (const i of [4, 8])
      expect(usage[i]!.cache_read_input_tokens).toBeGreaterThanOrEqual(
        (usage[i - 1]!.cache_read_input_tokens ?? 0) + (usage[i - 1]!.cache_creation_input_tokens ?? 0) - 1,
      );
    for (const r of requests) expect(JSON.stringify(r.body).split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
  }, 120_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import type { GenerateOptions } from '../../src/synthetic/generate.js';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { expectNoBust, loopSends } from '../helpers/loop-sends.js';
import type { LoopDisturbance, SentRequest } from '../helpers/plain-loop.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';

/**
 * A plain economy loop whose stored record is deleted after economy pruned a result while the cache was warm: the
 * request after the delete is rendered from the messages alone (the result in full again), with this process's copy
 * of what it sent as a cache hint (src/conversation/local-copy.ts), and reads the entries written before the prune.
 * The next request prunes the same result again (the same decision, the same bytes): the entries the requests after
 * the first prune wrote on those bytes are still warm, and a marker must reach them (judge-1529, claude-fable-5: the
 * hint kept only the render that read furthest at the delete, so they were missed, a bust, and re-written).
 */
const JUDGE_1529: GenerateOptions = {
  seed: 'judge-1529',
  profile: 'coding',
  requests: 29,
  rounds: { median: 12, min: 1, max: 60 },
  idleGaps: { over5m: 2, over1h: 0 },
  fanout: { rounds: 0 },
  hugeResults: 0,
  hugeRate: 0.002,
  resultScale: 1,
  thinkingRate: 0.65,
  redactedRate: 0.2,
  errorRate: 0,
  tail: false,
  hides: true,
  envelopeChange: false,
  revisits: true,
  distinctSearches: true,
  distinctLookups: true,
  model: 'claude-fable-5',
};

/**
 * judge-1689 (claude-sonnet-5-5, binds thinking, economy): a rewind to the turn's start early on (request 3), so every
 * request after it leaves out the first turn's thinking (its response stood at the cut: conversation/unvouched.ts);
 * economy prunes a result of turn 2 while warm (request 6). The record is deleted while the store is down (requests 16
 * and 17 render from the process's copy), and request 18 renders from the messages alone: it leaves out all the
 * thinking again, so its bytes are the ones requests 5 and before sent up to that result (sent in full again). The
 * hint was matched to the stream before that leave-out, so none of the copy's renders seemed to reach past the first
 * turn's thinking, and the entry request 5 wrote on the result was missed (a bust, 7.5k tokens re-written).
 */
const JUDGE_1689: GenerateOptions = {
  ...JUDGE_1529,
  seed: 'judge-1689',
  requests: 21,
  rounds: { median: 8, min: 1, max: 60 },
  idleGaps: { over5m: 0, over1h: 0 },
  fanout: { rounds: 1, min: 3, max: 12 },
  hugeRate: 0.005,
  resultScale: 0.5,
  redactedRate: 0,
  errorRate: 0.04,
  hides: false,
  model: 'claude-sonnet-5-5',
};

function loop(options: GenerateOptions, store: ConversationStore, id: string, disturb: LoopDisturbance): Promise<SentRequest[]> {
  return loopSends(options, disturb, { policy: 'economy', store, conversationId: id });
}

const dirs: string[] = [];
let redis: Awaited<ReturnType<typeof sharedRedis>>;
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store that keeps the records themselves in this process (the memory store keeps no copy: wrapped, it is a store like any other). */
class InProcess implements ConversationStore {
  readonly #inner = new MemoryConversationStore();
  load(id: string): Promise<ConversationRecord | undefined> {
    return this.#inner.load(id);
  }
  save(record: ConversationRecord, expected: number | null): Promise<void> {
    return this.#inner.save(record, expected);
  }
  delete(id: string): Promise<void> {
    return this.#inner.delete(id);
  }
}

const STORES: Record<string, () => Promise<{ store: ConversationStore; close(): Promise<void> }>> = {
  // Records kept as objects: the blocks past a cut are the very objects the requests before it rendered.
  'in process': async () => ({ store: new InProcess(), close: async () => undefined }),
  file: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'delete-again-'));
    dirs.push(dir);
    return { store: new FileConversationStore({ dir }), close: async () => undefined };
  },
  redis: async () => {
    const store = await createRedisConversationStore({ url: redis.url, namespace: uniqueNamespace('delete-again') });
    return { store, close: () => store.close() };
  },
};

// The judge's disturbance of judge-1529 (its idle expiry and store outage later on left out): the delete before
// request 11, that request retried, and a rewind to the turn's start before request 12, which prunes again.
const DISTURBANCES: Record<string, LoopDisturbance> = {
  'deleted before request 11': { deleteBefore: [11] },
  'deleted before request 11, retried, then a rewind': { deleteBefore: [11], retryAt: [11], rewindAt: [12] },
};

describe('economy prunes a result again after the record was deleted', () => {
  for (const [name, make] of Object.entries(STORES)) {
    for (const [label, disturb] of Object.entries(DISTURBANCES)) {
      it(`${name}: ${label}: the entries written on the pruned bytes are read again, not re-written`, async () => {
        const { store, close } = await make();
        try {
          const sent = await loop(JUDGE_1529, store, `judge-1529-${label.length}`, disturb);
          const after = sent.find((s) => s.index === 11)!;
          expect(after.plan.resync?.reason).toBe('no_stored_state');
          // Request 12 prunes round 2's first result again, as request 3 did before the delete.
          const again = sent.filter((s) => s.index === 12 && s.kind === 'request')[0]!;
          expect(again.plan.firstChangePath).toBe(sent.find((s) => s.index === 3)!.plan.firstChangePath);
          expectNoBust(sent, true);
        } finally {
          await close();
        }
      });
    }
  }
});

describe('a model that binds thinking, after a rewind, then the record deleted', () => {
  const disturbances: Record<string, LoopDisturbance> = {
    'deleted before request 16': { rewindAt: [3], deleteBefore: [16] },
    'deleted before request 16 while the store is down for two requests': { rewindAt: [3], deleteBefore: [16], storeDownAt: [16, 17] },
  };
  for (const [name, make] of Object.entries(STORES)) {
    for (const [label, disturb] of Object.entries(disturbances)) {
      it(`${name}: ${label}: the lost state leaves the thinking out and reads the entries written on those bytes`, async () => {
        const { store, close } = await make();
        try {
          const sent = await loop(JUDGE_1689, store, `judge-1689-${label.length}`, disturb);
          const lost = sent.find((s) => s.plan.resync?.reason === 'no_stored_state')!;
          expect(lost.index).toBe(disturb.storeDownAt ? 18 : 16);
          expectNoBust(sent, true);
        } finally {
          await close();
        }
      });
    }
  }
});

/**
 * A conversation whose stored state is lost, on a model that binds thinking to its prefix (claude-sonnet-5-5,
 * claude-haiku-5-5): `prepare` keeps every tail it sent in the history (render/bind.ts foldSentTail), so the
 * thinking produced after it keeps its prefix. When the stored state is gone (the memory store's idle expiry or
 * LRU, `delete`, a store that is down, a store that comes back with an older record), the messages alone do not
 * say which tails, hides or compactions the earlier requests sent: their thinking can no longer be sent under the
 * prefix it was produced under. Found by check15 (request 4 refused: `Invalid signature`). Every request here goes
 * through the real SDK client to the fake server, which signs each thinking block with its prefix and refuses one
 * sent back under another: every request must be accepted, carry at most 4 markers, and once the conversation is
 * stored again the requests read what the previous one wrote.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type PreparePlan } from '../../src/conversation/prepare.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { bindingScript } from '../helpers/binding.js';
import { answering } from './store-contract.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';
import { sharedRedis, startRedisServer, uniqueNamespace, type RedisServerHandle } from '../toolcache/redis-fixtures/server.js';

type Tail = (step: number) => string | Anthropic.ContentBlockParam[] | undefined;
const TAILS: Record<string, Tail> = {
  'no tail': () => undefined,
  'a tail': (s) => [{ type: 'text', text: `live view ${s}: ${'workspace listing '.repeat(120)}` }],
};
const MODELS = ['claude-sonnet-5-5', 'claude-haiku-5-5'];

/** Where the conversation lives, and how its state is lost. */
interface Env {
  readonly store: ConversationStore;
  /** The clock prepare (and the memory store) read. */
  readonly clock: { t: number };
  /** Called before each request `step` (its messages built, before prepare): loses the state where the path says. */
  lose(step: number, messages: Anthropic.MessageParam[]): Promise<void>;
  close(): Promise<void>;
}

let server: FakeMessagesServer | undefined;
let redis: { readonly url: string; release(): Promise<void> } | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  redis = await sharedRedis();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await redis?.release();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function memory(options: ConstructorParameters<typeof MemoryConversationStore>[0] = {}): { store: MemoryConversationStore; clock: { t: number } } {
  const clock = { t: 1_000_000 };
  return { store: new MemoryConversationStore({ ...options, now: () => clock.t }), clock };
}

/** The lost-state paths, by name: each makes a store and loses the conversation's state its own way. */
const PATHS: Record<string, (id: string, lostAt: number) => Promise<Env>> = {
  'memory: idle expiry': async () => {
    const { store, clock } = memory({ idleMs: 60_000 });
    return { store, clock, lose: async () => void (clock.t += 60_000), close: async () => undefined };
  },
  'memory: LRU eviction': async () => {
    const { store, clock } = memory({ maxConversations: 1 });
    const lose = async () => {
      // Another conversation prepared in the same store pushes this one out.
      await prepare(
        { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'other' }] },
        { conversationId: 'other', store, now: clock.t },
      );
    };
    return { store, clock, lose, close: async () => undefined };
  },
  'memory: delete': async (id) => {
    const { store, clock } = memory();
    return { store, clock, lose: () => store.delete(id), close: async () => undefined };
  },
  'file: delete': async (id) => {
    const dir = mkdtempSync(join(tmpdir(), 'lost-state-'));
    dirs.push(dir);
    const store = new FileConversationStore({ dir });
    return { store, clock: { t: 1_000_000 }, lose: () => store.delete(id), close: async () => undefined };
  },
  'redis: delete': async (id) => {
    const store = await createRedisConversationStore({ url: redis!.url, namespace: uniqueNamespace('lost'), commandTimeoutMs: 10_000 });
    return { store, clock: { t: 1_000_000 }, lose: () => store.delete(id), close: () => store.close() };
  },
  // A private redis-server stopped for two requests (store_unavailable) and started again empty (no persistence).
  'redis: stopped, restarted empty': (_id, lostAt) =>
    outage(lostAt, 2_000, async (own) => {
      await own.stop();
      return () => own.start();
    }),
  // Frozen for two requests (they time out: store_unavailable), then it answers again with the record it held
  // before: two responses the stored state never saw rendered.
  'redis: frozen, back with an older record': (_id, lostAt) =>
    outage(lostAt, 300, async (own) => {
      own.freeze();
      return async () => void own.thaw();
    }),
  // The loop edits its history: the first user message (every later thinking loses its prefix) ...
  'resync: first message edited': async () =>
    edited((messages) => {
      messages[0] = { role: 'user', content: `${messages[0]!.content as string} (edited)` };
    }),
  // ... or the newest tool result (the thinking after it loses its prefix).
  'resync: a tool result edited': async () =>
    edited((messages) => {
      const i = messages.findLastIndex((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
      const m = messages[i]!;
      messages[i] = { role: 'user', content: (m.content as Anthropic.ToolResultBlockParam[]).map((b) => ({ ...b, content: 'shorter' })) };
    }),
};

/** A memory store; the loop's history is edited by `edit` (a new message object: `prepare` resynchronises). */
function edited(edit: (messages: Anthropic.MessageParam[]) => void): Env {
  const { store, clock } = memory();
  return { store, clock, lose: async (_s, messages) => edit(messages), close: async () => undefined };
}

/**
 * A private redis-server that `down` takes away before request `lostAt`; the function it returns brings it back
 * before request `lostAt + 2` (the store answers again: its client reconnects by itself).
 */
async function outage(lostAt: number, commandTimeoutMs: number, down: (own: RedisServerHandle) => Promise<() => Promise<void>>): Promise<Env> {
  const own = await startRedisServer();
  const store = await createRedisConversationStore({ url: own.url, namespace: 'lost', commandTimeoutMs, maxReconnectDelayMs: 50 });
  let up: (() => Promise<void>) | undefined;
  return {
    store,
    clock: { t: 1_000_000 },
    lose: async (step) => {
      if (step === lostAt) up = await down(own);
      if (step === lostAt + 2) {
        await up!();
        await answering(store);
      }
    },
    close: async () => {
      own.thaw();
      await store.close();
      await own.destroy();
    },
  };
}

interface Step {
  readonly step: number;
  readonly status: number;
  readonly markers: number;
  readonly read: number;
  readonly write: number;
  readonly plan: PreparePlan;
}

function line(s: Step): string {
  const lost = s.plan.decisions.filter((d) => d.type === 'prune' && d.reason === 'binding').map((d) => (d as { binding?: { cause: string } }).binding?.cause);
  return `${s.step} st=${s.status} m=${s.markers} read=${s.read}/${s.plan.usage.cache_read_input_tokens} write=${s.write} resync=${s.plan.resync?.reason ?? ''} binding=${lost.join(',')}`;
}

/** 2 turns × 4 rounds of thinking + Read (every third thinking redacted); `env.lose` runs before each request. */
async function run(model: string, tail: Tail, env: Env, id: string): Promise<Step[]> {
  server = await startFakeServer({ script: bindingScript(2, 4, 3) });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [];
  const out: Step[] = [];
  let step = 0;
  for (let t = 1; t <= 2; t++) {
    // Long enough for haiku's 4,096-token minimum from the second request on.
    messages.push({ role: 'user', content: `Task ${t}: tidy up. ${'context '.repeat(t === 1 ? 3000 : 200)}` });
    for (;;) {
      step++;
      await env.lose(step, messages);
      env.clock.t += 1000;
      const tl = tail(step);
      const { params, headers, plan } = await prepare(
        { model, max_tokens: 1024, system: INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i })), tools: TOOLS, messages },
        { conversationId: id, store: env.store, now: env.clock.t, ...(tl === undefined ? {} : { tail: tl }) },
      );
      const markers = JSON.stringify(params).split('"cache_control"').length - 1;
      const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers }).catch((e: Error) => {
        throw new Error(`request ${step}: ${e.message}\n${out.map(line).join('\n')}`);
      });
      const r = server.requests.filter((x) => x.path === '/v1/messages').at(-1)!;
      out.push({
        step,
        status: r.status,
        markers,
        read: message.usage.cache_read_input_tokens ?? 0,
        write: message.usage.cache_creation_input_tokens ?? 0,
        plan,
      });
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      if (message.stop_reason !== 'tool_use') break;
      const uses = message.content.filter((b) => b.type === 'tool_use');
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: text(u.id, 600) })) });
    }
  }
  return out;
}

/** Whether the request saved the conversation (the next one knows what it wrote). */
const saved = (s: Step) => s.plan.resync?.reason !== 'store_unavailable' && s.plan.unsaved === undefined;

describe('a lost conversation on a model that binds thinking: every request accepted, the cache read again', () => {
  for (const [path, make] of Object.entries(PATHS)) {
    for (const lostAt of [4, 6]) {
      for (const model of MODELS) {
        for (const [tailName, tail] of Object.entries(TAILS)) {
          it(`${path}, before request ${lostAt} (${lostAt === 6 ? 'a new turn' : 'in a tool loop'}), ${model}, ${tailName}`, async () => {
            const id = `lost-${lostAt}`;
            const made = await make(id, lostAt);
            // The paths that lose the state once do it before request lostAt; the Redis ones also act later.
            const env: Env =
              path.startsWith('redis: ') && !path.endsWith('delete')
                ? made
                : { ...made, lose: (step, m) => (step === lostAt ? made.lose(step, m) : Promise.resolve()) };
            let steps: Step[];
            try {
              steps = await run(model, tail, env, id);
            } finally {
              await env.close();
            }
            const log = steps.map(line).join('\n');
            expect(steps.length, log).toBe(10);
            for (const s of steps) {
              expect(s.status, log).toBe(200);
              expect(s.markers, log).toBeLessThanOrEqual(4);
            }
            // Before the loss, and from the request after the first one saved again: the plan knows what the previous
            // request wrote, and the provider reads it (the whole previous request: ④ sits on its newest block, or on its tail).
            for (let k = 1; k < steps.length; k++) {
              const prev = steps[k - 1]!;
              const s = steps[k]!;
              if (!(s.step < lostAt || (s.step > lostAt && saved(prev)))) continue;
              // (claude-haiku-5-5 strips earlier thinking, and with a tail the plan counts the stripped thinking: check15's
              // pre-existing finding 1, not a lost state's.)
              if (model !== 'claude-haiku-5-5') expect(s.read, `${log}\nrequest ${s.step}`).toBe(s.plan.usage.cache_read_input_tokens);
              // claude-haiku-5-5 also strips the earlier turn's thinking at a new turn (the API does: a re-write from there).
              if (model !== 'claude-haiku-5-5' || s.step !== 6) expect(s.read, `${log}\nrequest ${s.step}`).toBeGreaterThanOrEqual(prev.read + prev.write);
            }
            // The request that could not know the prefixes says so: the thinking it left out, cause `unknown` (unless
            // none would be sent: claude-haiku-5-5 strips the earlier turn's thinking at a new turn). While Redis is out,
            // this process renders from its copy of the conversation (local-copy.ts: the state it rendered last), so
            // nothing is lost then; the state is lost only when Redis answers again without the record (restarted
            // empty: the store's answer wins), never when it answers with the record the copy was built on (frozen).
            const unknown = (s: Step) => s.plan.decisions.some((d) => d.type === 'prune' && d.reason === 'binding' && d.binding?.cause === 'unknown');
            const outage = path.startsWith('redis: ') && !path.endsWith('delete');
            const lostStep = !outage ? lostAt : path.includes('restarted empty') ? lostAt + 2 : undefined;
            if (!path.startsWith('resync') && lostStep !== undefined && !(model === 'claude-haiku-5-5' && lostStep === 6)) {
              expect(unknown(steps[lostStep - 1]!), log).toBe(true);
              expect(steps[lostStep - 1]!.plan.thinkingLost?.blocks, log).toBeGreaterThan(0);
            }
            if (outage) {
              for (const k of [lostAt, lostAt + 1]) expect(steps[k - 1]!.plan.localState?.reason, log).toBe('store_unavailable');
              expect(steps[lostAt + 1]!.plan.localState?.reason, log).toBe(lostStep === undefined ? 'unsaved' : undefined);
              if (lostStep === undefined) for (const s of steps) expect(s.plan.thinkingLost, log).toBeUndefined();
            }
            // Nothing lost, nothing left out before the loss.
            for (const s of steps.filter((x) => x.step < lostAt)) expect(s.plan.thinkingLost, log).toBeUndefined();
          });
        }
      }
    }
  }
});

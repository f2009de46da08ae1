/**
 * The request that lost its stored state reads what the provider still holds (judge16's left item 2, the judge's
 * disturbed loop: 16 of 98 sessions of judge-400..499 bust there). Without the stored state, `prepare` renders the
 * messages alone: what earlier requests hid comes back, and on a model that binds thinking every thinking block is
 * left out, so the request differs from what was sent from the first such block on. The provider's entry just
 * before that block is still warm (the request that hid it read it), but no cache point of a plain render reaches
 * it: ① sits on the envelope, ② on the previous turn's end, ④ on the newest block, each reading at most 20 positions
 * back. Every request here goes through the real SDK client to the fake server (its provider cache simulator
 * reports a bust: a warm entry of a longer prefix than the one read).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type HideRequest, type PreparePlan } from '../../src/conversation/prepare.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import type { RequestExplain } from '../../src/sim/types.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

/** A turn of the scripted session: `rounds` tool calls (Read), then an answer; each response thinks first when `thinking`. */
interface TurnSpec {
  readonly rounds: number;
  readonly thinking: boolean;
}

/**
 * A session shape: its turns, the agent's hide (of turn `turn`'s round `round` result, asked with request `at`,
 * forced past the cost gate), and the request before which the state is lost (requests count from 1).
 */
interface Scenario {
  readonly turns: readonly TurnSpec[];
  readonly hide?: { readonly at: number; readonly turn: number; readonly round: number };
  readonly lostAt: number;
  readonly models: readonly string[];
}

const SCENARIOS: Record<string, Scenario> = {
  // The hidden result is among the history's first blocks: the warm entry before it is 5 blocks past the envelope,
  // the previous turn's end (②) 57 blocks further.
  'a hide early in the history': {
    turns: [
      { rounds: 30, thinking: false },
      { rounds: 3, thinking: false },
    ],
    hide: { at: 4, turn: 1, round: 3 },
    lostAt: 33,
    models: ['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-sonnet-5-5'],
  },
  // The hidden result is in the middle of the previous turn: 21 blocks past the envelope, 25 before ②.
  'a hide in the middle of the previous turn': {
    turns: [
      { rounds: 22, thinking: false },
      { rounds: 3, thinking: false },
    ],
    hide: { at: 13, turn: 1, round: 11 },
    lostAt: 25,
    models: ['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-sonnet-5-5'],
  },
  // A model that binds thinking: the lost state leaves out every thinking block, the first one in turn 2 (31 blocks
  // past the envelope); the entries before it (the end of turn 1, turn 2's first request) are warm, ② (the end of
  // turn 2) comes 26 blocks after it.
  'thinking left out on a model that binds it': {
    turns: [
      { rounds: 14, thinking: false },
      { rounds: 12, thinking: true },
      { rounds: 3, thinking: true },
    ],
    lostAt: 30,
    models: ['claude-sonnet-5-5', 'claude-opus-5-5'],
  },
};

function script(turns: readonly TurnSpec[]): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  turns.forEach(({ rounds, thinking }, t) => {
    const think = (r: number) => (thinking ? [{ type: 'thinking' as const, thinking: `Turn ${t + 1}, step ${r}.`, signature: `sig-${t + 1}-${r}` }] : []);
    for (let r = 1; r <= rounds; r++)
      out.push([...think(r), { type: 'tool_use', id: `toolu_${t + 1}_${r}`, name: 'Read', input: { path: `src/m${t + 1}-${r}.ts` } }]);
    out.push([...think(0), { type: 'text', text: `Turn ${t + 1} done.` }]);
  });
  return out;
}

/** A store that throws while `down()` says so (a Redis that does not answer). */
class FlakyStore implements ConversationStore {
  constructor(
    readonly inner: ConversationStore,
    readonly down: () => boolean,
  ) {}
  load(id: string): Promise<ConversationRecord | undefined> {
    return this.down() ? Promise.reject(new Error('store down (test)')) : this.inner.load(id);
  }
  save(record: ConversationRecord, expected: number | null): Promise<void> {
    return this.down() ? Promise.reject(new Error('store down (test)')) : this.inner.save(record, expected);
  }
  delete(id: string): Promise<void> {
    return this.inner.delete(id);
  }
}

/** How the state is lost before request `lostAt`: a store, and what happens to it before each request. */
type Loss = (lostAt: number) => { store: ConversationStore; before(step: number, clock: { t: number }): Promise<void> };

const LOSSES: Record<string, Loss> = {
  // `store.delete` before request lostAt (run() does it: it knows the conversation id).
  delete: () => ({ store: new MemoryConversationStore(), before: async () => undefined }),
  // Two requests rendered from the messages alone (store_unavailable), then the store answers again. They go to a
  // worker that holds no copy of the conversation (another store object: the process's copy, local-copy.ts, is kept
  // per store), as when another worker prepared the requests before.
  'store down': (lostAt) => {
    let step = 0;
    const inner = new MemoryConversationStore();
    const down = () => step === lostAt || step === lostAt + 1;
    const here = new FlakyStore(inner, down);
    const elsewhere = new FlakyStore(inner, down);
    return {
      get store() {
        return down() ? elsewhere : here;
      },
      before: async (s) => void (step = s),
    };
  },
  // The memory store drops a conversation idle for a minute; the provider's 5-minute entries outlive it.
  'idle expiry': (lostAt) => {
    const clock = { t: 0 };
    const store = new MemoryConversationStore({ idleMs: 60_000, now: () => clock.t });
    return {
      store,
      before: async (step, c) => {
        if (step === lostAt) c.t += 61_000;
        clock.t = c.t;
      },
    };
  },
};

interface Step {
  readonly step: number;
  readonly markers: number;
  readonly explain: RequestExplain;
  readonly plan: PreparePlan;
}

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(scenario: Scenario, model: string, policy: 'conservative' | 'economy', tail: boolean, lossName: string): Promise<Step[]> {
  const clock = { t: 1_000_000 };
  server = await startFakeServer({ script: script(scenario.turns), now: () => clock.t });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const id = `lost-read-${lossName}`;
  const loss = LOSSES[lossName]!(scenario.lostAt);
  const messages: Anthropic.MessageParam[] = [];
  const out: Step[] = [];
  let step = 0;
  for (let t = 1; t <= scenario.turns.length; t++) {
    // Long enough for claude-haiku-4-5's 4,096-token minimum on the first blocks of the history.
    messages.push({ role: 'user', content: `Task ${t}: tidy up. ${'context '.repeat(t === 1 ? 4000 : 20)}` });
    for (;;) {
      step++;
      clock.t += 1000;
      if (step === scenario.lostAt && lossName === 'delete') await loss.store.delete(id);
      await loss.before(step, clock);
      const h = scenario.hide;
      const hide: HideRequest[] = h && h.at === step ? [{ toolUseId: `toolu_${h.turn}_${h.round}`, force: true }] : [];
      const { params, headers, plan } = await prepare(
        { model, max_tokens: 1024, system: INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i })), tools: TOOLS, messages },
        {
          conversationId: id,
          store: loss.store,
          now: clock.t,
          ...(policy === 'economy' ? { render: { policy } } : {}),
          ...(tail ? { tail: `live view ${step}: ${'workspace listing '.repeat(40)}` } : {}),
          ...(hide.length > 0 ? { hide } : {}),
        },
      );
      const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers }).catch((e: Error) => {
        throw new Error(`request ${step}: ${e.message}`);
      });
      const r = server.requests.filter((x) => x.path === '/v1/messages').at(-1)!;
      out.push({ step, markers: JSON.stringify(params).split('"cache_control"').length - 1, explain: r.explain as RequestExplain, plan });
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      if (message.stop_reason !== 'tool_use') break;
      const use = message.content.find((b) => b.type === 'tool_use')!;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: text(use.id, 600) }] });
    }
  }
  return out;
}

function line(s: Step): string {
  const e = s.explain;
  const marks = e.markers.map((m) => `${m.position}${m.outcome[0]}`).join(' ');
  return `${s.step} resync=${s.plan.resync?.reason ?? ''} markers=[${marks}] read=${e.read?.position ?? '-'} bust=${e.bust ? `missed ${e.missedPosition}` : 'no'}`;
}

describe('the request that lost its stored state reads the provider entry before the first block it changes', () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    for (const model of scenario.models) {
      for (const policy of ['conservative', 'economy'] as const) {
        for (const lossName of Object.keys(LOSSES)) {
          const tail = model === 'claude-sonnet-5-5' && policy === 'economy';
          it(`${name}: ${model}, ${policy}${tail ? ', a tail' : ''}, ${lossName} before request ${scenario.lostAt}`, async () => {
            const steps = await run(scenario, model, policy, tail, lossName);
            const log = steps.map(line).join('\n');
            const lost = steps[scenario.lostAt - 1]!;
            // The loss happened where the scenario says (the plan says so), and the session went on to its end.
            expect(lost.plan.resync?.reason, log).toBe(lossName === 'store down' ? 'store_unavailable' : 'no_stored_state');
            expect(steps.length, log).toBe(scenario.turns.reduce((n, t) => n + t.rounds + 1, 0));
            for (const s of steps) {
              expect(s.markers, log).toBeLessThanOrEqual(4);
              // No request writes what the provider could have read, the one that lost its state included.
              expect(s.explain.bust, `${log}\nrequest ${s.step}`).toBe(false);
            }
            // It read past the envelope: the history up to the first block it changed. (With a tail, a model that binds
            // thinking keeps each sent tail in the history: the messages alone lack the first one, right after the
            // first user message, where no entry was written.)
            const envelope = Math.max(...steps[0]!.explain.markers.filter((m) => m.tier === 'system').map((m) => m.position));
            if (!tail) expect(lost.explain.read?.position ?? 0, log).toBeGreaterThan(envelope);
          });
        }
      }
    }
  }
});

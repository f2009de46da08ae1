/**
 * Preserved thinking and the compaction trigger (models that bind thinking): a compaction due in the middle of
 * a tool loop waits for the turn boundary while the request fits under the defer ceiling, so the open loop's
 * thinking is sent back with it; past the ceiling it compacts at once (the API accepts a continuation whose
 * thinking was left out, and a request over the window is refused too). The fake server checks every thinking
 * prefix and the window (`contextWindow`), with the real SDK client, through Session and prepare, both policies.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { bindingDeferCeiling } from '../../src/render/compact.js';
import type { Decision, RenderOptions } from '../../src/render/types.js';

type Policy = 'conservative' | 'economy';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { bindingScript, thinkingOf } from '../helpers/binding.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

const MODEL = 'claude-sonnet-5-5';
const WINDOW = 9000;
const THRESHOLD = 0.6;

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Step {
  readonly turn: number;
  /** 1-based request of the turn: 1 is the turn boundary, later ones continue its tool loop. */
  readonly round: number;
  readonly decisions: readonly Decision[];
}

interface Outcome {
  readonly steps: Step[];
  readonly requests: { status: number; error?: string; thinking: string[]; prompt: number }[];
}

function outcome(s: FakeMessagesServer, steps: Step[]): Outcome {
  const requests = s.requests
    .filter((r) => r.path === '/v1/messages')
    .map((r) => {
      const u = (r.response as Anthropic.Message | undefined)?.usage;
      const prompt = u ? u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) : 0;
      return { status: r.status, ...(r.error ? { error: r.error.message } : {}), thinking: thinkingOf(r.body), prompt };
    });
  return { steps, requests };
}

const renderOptions = (policy: Policy): Omit<RenderOptions, 'now' | 'tokenFactor'> => ({
  policy,
  profile: { ...resolveProfile(MODEL), contextWindow: WINDOW },
  compact: { threshold: THRESHOLD, target: 0.3 },
});

/** Tool result size of a call: `big` (chars) for the call named there, else `size`. */
type Sizes = { size: number; big?: { id: string; chars: number } };
const resultOf = (id: string, s: Sizes) => text(id, s.big?.id === id ? s.big.chars : s.size);

async function viaSession(policy: Policy, turns: number, rounds: number, sizes: Sizes): Promise<Outcome> {
  server = await startFakeServer({ script: bindingScript(turns, rounds, 0), contextWindow: WINDOW });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  let now = 1_000_000;
  let ids = 0;
  const session = new Session({
    model: MODEL,
    instructions: INSTRUCTIONS,
    tools: TOOLS,
    render: renderOptions(policy),
    now: () => now,
    handlers: { Read: ((args: { path: string }) => resultOf(`toolu_${args.path.slice(8, -3).replace('-', '_')}`, sizes)) as never },
  });
  const steps: Step[] = [];
  for (let t = 1; t <= turns; t++) {
    session.startTurn(`Task ${t}: tidy up the modules.`);
    for (let r = 1; ; r++) {
      ids++;
      session.setTail(`live view ${ids}`);
      const message = await session.step(client, { max_tokens: 256 });
      steps.push({ turn: t, round: r, decisions: [...(session.rendered?.decisions ?? [])] });
      now += 1000;
      if (message.stop_reason !== 'tool_use') break;
    }
  }
  return outcome(server, steps);
}

async function viaPrepare(policy: Policy, turns: number, rounds: number, sizes: Sizes): Promise<Outcome> {
  server = await startFakeServer({ script: bindingScript(turns, rounds, 0), contextWindow: WINDOW });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const store = new MemoryConversationStore();
  const messages: Anthropic.MessageParam[] = [];
  const steps: Step[] = [];
  let now = 1_000_000;
  let ids = 0;
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
    for (let r = 1; ; r++) {
      ids++;
      const { params, headers, rendered } = await prepare(
        { model: MODEL, max_tokens: 256, system: INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i })), tools: TOOLS, messages },
        { conversationId: `bind-compact-${policy}`, store, now: (now += 1000), tail: `live view ${ids}`, render: renderOptions(policy) },
      );
      steps.push({ turn: t, round: r, decisions: rendered.decisions });
      const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers });
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      if (message.stop_reason !== 'tool_use') break;
      const uses = message.content.filter((b) => b.type === 'tool_use');
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: resultOf(u.id, sizes) })) });
    }
  }
  return outcome(server, steps);
}

const compactions = (o: Outcome) => o.steps.filter((s) => s.decisions.some((d) => d.type === 'compact'));
const bindingDrops = (ds: readonly Decision[]) => ds.filter((d) => d.type === 'prune' && d.reason === 'binding');
const waits = (ds: readonly Decision[]) => ds.filter((d) => d.type === 'defer' && d.why.startsWith('preserved thinking: compaction waits'));

describe('preserved thinking: compaction waits for the turn boundary', () => {
  it('the ceiling is half-way from the threshold to the window', () => {
    expect(bindingDeferCeiling(0.9)).toBeCloseTo(0.95);
    expect(bindingDeferCeiling(0.6)).toBeCloseTo(0.8);
    expect(bindingDeferCeiling(1)).toBe(1);
  });

  describe.each([
    ['Session', viaSession],
    ['prepare', viaPrepare],
  ] as const)('%s', (_door, run) => {
    it.each(['conservative', 'economy'] as const)(
      '%s: due mid-loop, compacts at the next turn, never refused, the open loop keeps its thinking',
      async (policy) => {
        const o = await run(policy, 4, 4, { size: 1400 });
        expect(o.requests.map((r) => r.error ?? r.status)).toEqual(o.requests.map(() => 200));
        // The window is never exceeded (the fake server checks it; its own count, as billed).
        for (const r of o.requests) expect(r.prompt).toBeLessThanOrEqual(WINDOW);
        // A compaction was due in the middle of a tool loop and waited: the plan says so.
        const waited = o.steps.filter((s) => waits(s.decisions).length > 0);
        expect(waited.length).toBeGreaterThan(0);
        expect(waited.every((s) => s.round > 1)).toBe(true);
        // It happened, and only at a turn boundary (a turn's first request).
        const done = compactions(o);
        expect(done.length).toBeGreaterThan(0);
        expect(done.every((s) => s.round === 1)).toBe(true);
        // No thinking of an open loop was left out: binding drops only at turn boundaries.
        for (const s of o.steps) if (s.round > 1) expect(bindingDrops(s.decisions)).toEqual([]);
        // Every mid-loop request carries the thinking of every round of its open loop.
        o.steps.forEach((s, i) => {
          if (s.round === 1) return;
          const want = Array.from({ length: s.round - 1 }, (_, k) => `sig-${s.turn}-${k + 1}`);
          expect(o.requests[i]!.thinking.slice(-want.length)).toEqual(want);
        });
      },
    );

    it('deferring would overflow: compacts mid-loop at once, never refused, the window holds', async () => {
      // Turn 2's third result is big: with it the request is past the ceiling (and would not fit the window).
      const o = await run('conservative', 2, 4, { size: 1400, big: { id: 'toolu_2_3', chars: 9000 } });
      expect(o.requests.map((r) => r.error ?? r.status)).toEqual(o.requests.map(() => 200));
      for (const r of o.requests) expect(r.prompt).toBeLessThanOrEqual(WINDOW);
      const mid = compactions(o).filter((s) => s.round > 1);
      expect(mid.length).toBeGreaterThan(0);
      // The open loop's thinking was left out there (accepted by the API), and the plan says why.
      const at = mid[0]!;
      const drops = bindingDrops(at.decisions);
      expect(drops.some((d) => d.path.startsWith(`turns/${at.turn}/`))).toBe(true);
      expect(drops.every((d) => d.type === 'prune' && d.binding?.cause === 'compaction')).toBe(true);
    });
  });
});

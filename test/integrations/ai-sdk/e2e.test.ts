/**
 * End to end: `cachepointMiddleware` around the real `@ai-sdk/anthropic`
 * model, driven by the real `generateText` / `streamText` tool loops, against
 * the fake Messages API. The fake server's cache simulator reports the usage,
 * so cache reads, marker budgets and costs are the API's rules, not ours.
 */
import type { ContentBlockParam, Message, MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, stepCountIs, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { conversationStats, type PreparePlan } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { promptCost, usageTokens } from '../../../src/models/pricing.js';
import { resolveProfile } from '../../../src/models/profiles.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, bodies, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Marker = { type: 'ephemeral'; ttl?: '5m' | '1h' };

/** Every cache marker of a request body in prefix order (tools → system → messages). */
function markers(body: MessageCreateParamsBase): Marker[] {
  const out: Marker[] = [];
  const visit = (b: unknown) => {
    const c = (b as { cache_control?: Marker | null }).cache_control;
    if (c) out.push(c);
  };
  (body.tools ?? []).forEach(visit);
  if (Array.isArray(body.system)) body.system.forEach(visit);
  for (const m of body.messages) if (Array.isArray(m.content)) m.content.forEach(visit);
  if ((body as { cache_control?: unknown }).cache_control) out.push((body as { cache_control: Marker }).cache_control);
  return out;
}

function expectValidMarkers(body: MessageCreateParamsBase): void {
  const ms = markers(body);
  expect(ms.length).toBeLessThanOrEqual(4);
  // longer TTLs before shorter ones
  const firstShort = ms.findIndex((m) => (m.ttl ?? '5m') === '5m');
  if (firstShort >= 0) expect(ms.slice(firstShort).every((m) => (m.ttl ?? '5m') === '5m')).toBe(true);
}

const PROFILE = resolveProfile(MODEL);
const costOf = (server: FakeMessagesServer) =>
  server.requests.filter((r) => r.path === '/v1/messages').reduce((n, r) => n + promptCost(PROFILE.prices, usageTokens((r.response as Message).usage)), 0);
const usages = (server: FakeMessagesServer) => server.requests.filter((r) => r.path === '/v1/messages').map((r) => (r.response as Message).usage);

/** The AI SDK's own way: one cacheControl on the last message of every step (prepareStep). */
function lastMessageCacheControl({ messages }: { messages: ModelMessage[] }) {
  return {
    messages: messages.map((m, i) => (i === messages.length - 1 ? { ...m, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } : m)),
  };
}

type Mode = 'generate' | 'stream';

/** Runs a 3-turn tool loop; `wrap` decides the model and per-call options. */
async function runLoop(
  mode: Mode,
  opts: { cachepoint: boolean; conversationId?: string; store?: MemoryConversationStore; warnings?: CachepointWarning[]; plans?: PreparePlan[] },
) {
  const fake = await fakeAnthropic({ script: script(3, 3) });
  servers.push(fake.server);
  const base = fake.provider(MODEL);
  const model = opts.cachepoint
    ? wrapLanguageModel({
        model: base,
        middleware: cachepointMiddleware({
          ...(opts.store ? { store: opts.store } : {}),
          onWarning: (w) => opts.warnings?.push(w),
          onPlan: (e) => opts.plans?.push(e.plan),
        }),
      })
    : base;
  const runs = { count: 0 };
  const messages: ModelMessage[] = [];
  for (let t = 1; t <= 3; t++) {
    messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
    const common = {
      model,
      instructions: SYSTEM,
      messages,
      tools: agentTools(runs),
      stopWhen: stepCountIs(10),
      ...(opts.cachepoint ? { providerOptions: { cachepoint: { conversationId: opts.conversationId ?? 'e2e' } } } : { prepareStep: lastMessageCacheControl }),
    };
    if (mode === 'generate') {
      const result = await generateText(common);
      expect(result.steps).toHaveLength(4);
      messages.push(...result.responseMessages);
    } else {
      const result = streamText(common);
      let deltas = 0;
      for await (const part of result.fullStream) if (part.type === 'text-delta') deltas++;
      expect(deltas).toBeGreaterThan(0);
      expect(await result.steps).toHaveLength(4);
      messages.push(...(await result.responseMessages));
    }
  }
  return { server: fake.server, runs };
}

describe.each<Mode>(['generate', 'stream'])('cachepointMiddleware in a %sText tool loop (3 turns, 12 requests)', (mode) => {
  it('reads the cache on every request after the first, within the marker budget, for no more than the AI SDK’s own cacheControl', async () => {
    const store = new MemoryConversationStore();
    const warnings: CachepointWarning[] = [];
    const plans: PreparePlan[] = [];
    const ours = await runLoop(mode, { cachepoint: true, store, warnings, plans });
    const sent = bodies(ours.server);
    expect(sent).toHaveLength(12);
    expect(ours.server.requests.every((r) => r.status === 200)).toBe(true);
    expect(warnings).toEqual([]);
    // Each request extends the stored conversation: mapped incrementally, never resynchronised.
    expect(plans.map((p) => p.resync?.reason ?? null)).toEqual(plans.map(() => null));
    expect(plans.map((p) => [p.turn, p.round])).toEqual([1, 2, 3].flatMap((t) => [1, 2, 3, 4].map((r) => [t, r])));
    sent.forEach(expectValidMarkers);
    // Every request carries the engine's markers (at least the envelope's and the newest stable block's).
    for (const body of sent) expect(markers(body).length).toBeGreaterThanOrEqual(2);
    const u = usages(ours.server);
    expect(u[0]!.cache_read_input_tokens).toBe(0);
    expect(u[0]!.cache_creation_input_tokens).toBeGreaterThan(0);
    u.slice(1).forEach((x, i) => expect(x.cache_read_input_tokens, `request ${i + 1}`).toBeGreaterThan(0));

    // Usage went back into the conversation, as Session records it.
    const stats = await conversationStats({ conversationId: 'e2e', store });
    expect(stats?.totals.requests).toBe(12);
    expect(stats?.totals.cacheRead).toBe(u.reduce((n, x) => n + (x.cache_read_input_tokens ?? 0), 0));
    expect(stats?.pendingUsage).toBe(false);

    // The same loop with the AI SDK's documented single cacheControl on the last message.
    const theirs = await runLoop(mode, { cachepoint: false });
    bodies(theirs.server).forEach(expectValidMarkers);
    const [a, b] = [costOf(ours.server), costOf(theirs.server)];
    expect(a).toBeLessThanOrEqual(b);
    console.log(`${mode}Text: cachepoint $${a.toFixed(5)} vs AI SDK last-message cacheControl $${b.toFixed(5)} (×${(a / b).toFixed(3)})`);
  });
});

describe('the volatile tail', () => {
  it('goes last, unmarked, and never into the history', async () => {
    const fake = await fakeAnthropic({ script: script(1, 2) });
    servers.push(fake.server);
    let n = 0;
    const model = wrapLanguageModel({
      model: fake.provider(MODEL),
      middleware: cachepointMiddleware({
        conversationId: 'tail',
        store: new MemoryConversationStore(),
        tail: () => `live view #${++n}: budget ${1000 - n} tokens`,
      }),
    });
    const result = await generateText({ model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) });
    expect(result.steps).toHaveLength(3);
    const sent = bodies(fake.server);
    sent.forEach((body, i) => {
      const last = body.messages.at(-1)!;
      const blocks = last.content as ContentBlockParam[];
      const tail = blocks.at(-1)!;
      expect(tail).toMatchObject({ type: 'text', text: `live view #${i + 1}: budget ${999 - i} tokens` });
      expect('cache_control' in tail).toBe(false);
      // the tail of an earlier request is not in a later one
      if (i > 0) expect(JSON.stringify(body.messages)).not.toContain(`live view #${i}:`);
    });
    // the history the AI SDK keeps has no tail
    expect(JSON.stringify(result.responseMessages)).not.toContain('live view');
  });
});

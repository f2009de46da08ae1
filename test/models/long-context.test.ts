/**
 * 1M-token context windows: the `<model>[1m]` profiles (window, beta header,
 * long-context prices), the mappers that send `anthropic-beta`, and the fake
 * server that refuses a prompt over the model's window in the API's words
 * unless the header opens the 1M window.
 */
import Anthropic from '@anthropic-ai/sdk';
import { generateText, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { InvalidOptionError } from '../../src/errors.js';
import { cachepointMiddleware } from '../../src/integrations/ai-sdk/index.js';
import { priceTokens } from '../../src/models/pricing.js';
import { apiModelId, CONTEXT_1M_BETA, longContextProfile, resolveProfile } from '../../src/models/profiles.js';
import { anthropicHeaders, toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { createTimeline, startTurn } from '../../src/timeline/edit.js';
import { text } from '../helpers/build.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: number) {
  const s = await startFakeServer({ script: Array.from({ length: script }, () => [{ type: 'text' as const, text: 'ok' }]) });
  servers.push(s);
  return s;
}

/** About 250k cl100k tokens of code-like text: over the 200k window, well under 1M. */
const BIG = text('big', 1_000_000);

describe('1M-window profiles', () => {
  it('longContextProfile: 1M window, the beta header, long-context prices, the plain id for requests', () => {
    const p = longContextProfile('claude-sonnet-4-5');
    expect(p).toMatchObject({ id: 'claude-sonnet-4-5[1m]', apiModel: 'claude-sonnet-4-5', contextWindow: 1_000_000, betas: [CONTEXT_1M_BETA] });
    expect(p.prices).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75 });
    // Above 200k input tokens: input ×2 ($6), output ×1.5 ($22.50); cache writes and reads follow input.
    expect(p.prices.longContext).toEqual({ aboveInputTokens: 200_000, input: 6, cacheWrite5m: 7.5, cacheWrite1h: 12, cacheRead: 0.6, output: 22.5 });
    expect(longContextProfile('claude-opus-4-6').prices.longContext).toMatchObject({ input: 10, output: 37.5 });
    // The same profile by id, dated or not; the request names the plain model.
    expect(resolveProfile('claude-sonnet-4-5[1m]')).toEqual(p);
    expect(resolveProfile('claude-sonnet-4-5-20250929[1m]')).toEqual(p);
    expect(apiModelId('claude-sonnet-4-5-20250929[1m]')).toBe('claude-sonnet-4-5-20250929');
    expect(longContextProfile(p)).toBe(p);
    // A model with a native 1M window needs no header: its own profile.
    expect(longContextProfile('claude-sonnet-5')).toBe(resolveProfile('claude-sonnet-5'));
    expect(resolveProfile('claude-sonnet-5[1m]')).toBe(resolveProfile('claude-sonnet-5'));
    // No 1M window at all: said so, naming the models the beta covers.
    expect(() => longContextProfile('claude-haiku-4-5')).toThrow(InvalidOptionError);
    expect(() => resolveProfile('claude-haiku-4-5[1m]')).toThrow(/claude-sonnet-4-5/);
  });

  it('bills a whole request at the long-context rate once its input side passes 200k tokens, and only then', () => {
    const prices = longContextProfile('claude-sonnet-4-5').prices;
    const under = priceTokens(prices, { input: 10_000, cacheRead: 190_000, cacheWrite5m: 0, cacheWrite1h: 0 }, 1000);
    expect(under.input).toBeCloseTo(0.03, 9);
    expect(under.cacheRead).toBeCloseTo(0.057, 9);
    expect(under.output).toBeCloseTo(0.015, 9);
    const over = priceTokens(prices, { input: 10_001, cacheRead: 190_000, cacheWrite5m: 0, cacheWrite1h: 0 }, 1000);
    expect(over.input).toBeCloseTo(0.060006, 9);
    expect(over.cacheRead).toBeCloseTo(0.114, 9);
    expect(over.output).toBeCloseTo(0.0225, 9);
    // The plain profile has no premium.
    expect(priceTokens(resolveProfile('claude-sonnet-4-5').prices, { input: 300_000, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 }).input).toBeCloseTo(
      0.9,
      9,
    );
  });

  it('toAnthropic names the plain model and anthropicHeaders carries the beta; plain profiles need no header', () => {
    const state = startTurn(createTimeline({ model: 'claude-sonnet-4-5[1m]', instructions: ['Be brief.'] }), 'hi');
    const r = render(state, { now: 0 });
    expect(r.profile.contextWindow).toBe(1_000_000);
    expect(toAnthropic(r).model).toBe('claude-sonnet-4-5');
    expect(anthropicHeaders(r)).toEqual({ 'anthropic-beta': CONTEXT_1M_BETA });
    const plain = render(startTurn(createTimeline({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'] }), 'hi'), { now: 0 });
    expect(anthropicHeaders(plain)).toEqual({});
    // A profile passed as an option works the same on a plain state model.
    expect(anthropicHeaders(render(plain.state, { now: 1, profile: longContextProfile('claude-sonnet-4-5') }))).toEqual({ 'anthropic-beta': CONTEXT_1M_BETA });
  });
});

describe('the fake server checks the window the way the API does', () => {
  it('refuses a prompt over 200k tokens without the header, in the API’s words, and accepts it with the header', async () => {
    const s = await server(1);
    const client = new Anthropic({ baseURL: s.url, apiKey: 'test-key', maxRetries: 0 });
    const params = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user' as const, content: BIG }] };
    const refused = await client.messages.create(params).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as Error).message).toMatch(/prompt is too long: \d+ tokens > 200000 maximum/);
    const ok = await client.messages.create(params, { headers: { 'anthropic-beta': `other-beta,${CONTEXT_1M_BETA}` } });
    expect(ok.usage.input_tokens + (ok.usage.cache_read_input_tokens ?? 0)).toBeGreaterThan(200_000);
    // The header opens 1M only on the models the beta covers.
    const haiku = await client.messages
      .create({ ...params, model: 'claude-haiku-4-5' }, { headers: { 'anthropic-beta': CONTEXT_1M_BETA } })
      .catch((e: unknown) => e);
    expect((haiku as Error).message).toMatch(/prompt is too long/);
  });

  it('Session with a [1m] model sends the header and the plain model id, and the long request passes', async () => {
    const s = await server(1);
    const client = new Anthropic({ baseURL: s.url, apiKey: 'test-key', maxRetries: 0 });
    const session = new Session({ model: 'claude-sonnet-4-5[1m]', instructions: ['Summarize the file.'] });
    session.startTurn(BIG);
    expect(session.headers).toEqual({ 'anthropic-beta': CONTEXT_1M_BETA });
    await session.step(client, { max_tokens: 100 });
    const req = s.requests.find((r) => r.path === '/v1/messages')!;
    expect(req.status).toBe(200);
    expect(req.headers['anthropic-beta']).toContain(CONTEXT_1M_BETA);
    expect((req.body as { model: string }).model).toBe('claude-sonnet-4-5');
    // Streamed too.
    const s2 = await server(1);
    const streamed = new Session({ model: 'claude-sonnet-4-5[1m]', instructions: ['Summarize the file.'] });
    streamed.startTurn(BIG);
    await streamed.step(new Anthropic({ baseURL: s2.url, apiKey: 'test-key', maxRetries: 0 }), { max_tokens: 100 }, { stream: true });
    expect(s2.requests.find((r) => r.path === '/v1/messages')?.headers['anthropic-beta']).toContain(CONTEXT_1M_BETA);
  });

  it('prepare returns the headers with the params', async () => {
    const s = await server(1);
    const client = new Anthropic({ baseURL: s.url, apiKey: 'test-key', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const { params, headers } = await prepare(
      { model: 'claude-sonnet-4-5[1m]', max_tokens: 100, system: 'Summarize the file.', messages: [{ role: 'user', content: BIG }] },
      { conversationId: 'c1', store },
    );
    expect(params.model).toBe('claude-sonnet-4-5');
    expect(headers).toEqual({ 'anthropic-beta': CONTEXT_1M_BETA });
    const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers });
    expect(message.type).toBe('message');
  });

  it('prepare’s headers keep the betas of the params (the beta client’s `betas`, which these headers replace)', async () => {
    // client.beta.messages.create turns `betas` into the anthropic-beta header, and the request options'
    // headers replace it: headers naming only the 1M beta silently dropped the caller's own betas.
    const s = await server(2);
    const client = new Anthropic({ baseURL: s.url, apiKey: 'test-key', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const betas = ['interleaved-thinking-2025-05-14', CONTEXT_1M_BETA];
    for (const model of ['claude-sonnet-4-5[1m]', 'claude-sonnet-4-5']) {
      const { params, headers } = await prepare(
        { model, max_tokens: 100, system: 'Summarize the file.', betas, messages: [{ role: 'user', content: 'hi' }] },
        { conversationId: model, store },
      );
      await client.beta.messages.create(params, { headers });
      const sent = String(s.requests.at(-1)?.headers['anthropic-beta']).split(',');
      expect(sent).toEqual(betas); // each once, the caller's order
    }
    // Without betas in the params, or with thinking.block_binding, the header is as before (plus the caller's).
    const r = render(startTurn(createTimeline({ model: 'claude-sonnet-4-5[1m]', instructions: ['Be brief.'] }), 'hi'), { now: 0 });
    expect(anthropicHeaders(r, { betas: ['files-api-2025-04-14'] })).toEqual({ 'anthropic-beta': `files-api-2025-04-14,${CONTEXT_1M_BETA}` });
    expect(anthropicHeaders(r, { betas: [] })).toEqual({ 'anthropic-beta': CONTEXT_1M_BETA });
  });

  it('the AI SDK middleware adds the beta header to the call (keeping the caller’s own betas)', async () => {
    const s = await server(1);
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const provider = createAnthropic({ baseURL: `${s.url}/v1`, apiKey: 'test-key' });
    const model = wrapLanguageModel({
      model: provider('claude-sonnet-4-5'),
      middleware: cachepointMiddleware({ render: { profile: longContextProfile('claude-sonnet-4-5') } }),
    });
    const result = await generateText({
      model,
      system: 'Summarize the file.',
      prompt: BIG,
      headers: { 'anthropic-beta': 'other-beta' },
      providerOptions: { cachepoint: { conversationId: 'ai-1' } },
    });
    expect(result.text).toBe('ok');
    const beta = String(s.requests.find((r) => r.path === '/v1/messages')?.headers['anthropic-beta']);
    expect(beta.split(',')).toEqual(expect.arrayContaining(['other-beta', CONTEXT_1M_BETA]));
  });
});

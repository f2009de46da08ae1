import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { Calibration } from '../../src/tokens/calibration.js';
import { charCounter, tiktokenCounter, type TokenCounter } from '../../src/tokens/counter.js';
import { exactCounter } from '../../src/tokens/exact.js';
import { session } from '../helpers/build.js';

const MODEL = 'claude-sonnet-4-6';
let server: FakeMessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startFakeServer>[0] = {}) {
  server = await startFakeServer(options);
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }) };
}

describe('exactCounter', () => {
  it('counts a rendered request with count_tokens, sending only the fields that endpoint accepts', async () => {
    const { server, client } = await start({ script: [[{ type: 'text', text: 'ok' }]] });
    const exact = exactCounter({ client, model: MODEL });
    const params = toAnthropic(render(session([2, 1])), { max_tokens: 1024, stop_sequences: ['END'] });
    const counted = await exact.countRequest(params);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(Object.keys(sent.body as object).sort()).toEqual(['messages', 'model', 'system', 'tools']);
    // The same prompt sent for real is billed exactly what count_tokens said (input + cache write + cache read).
    const { usage } = await client.messages.create(params);
    expect(usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)).toBe(counted);
    expect(exact.name).toBe(`anthropic:count_tokens:${MODEL}`);
  });

  it('counts a text as one user message, growing with the text', async () => {
    const { client } = await start();
    const exact = exactCounter({ client, model: MODEL });
    const short = await exact.countText('hello');
    const long = await exact.countText('hello '.repeat(100));
    expect(short).toBeGreaterThan(0);
    expect(long).toBeGreaterThan(short + 90);
  });

  it('surfaces the API error of an invalid request as the SDK error', async () => {
    const { client } = await start();
    await expect(exactCounter({ client, model: MODEL }).countRequest({ messages: [] })).rejects.toBeInstanceOf(BadRequestError);
  });

  async function calibrated(counter: TokenCounter, shapes: readonly (readonly number[])[], target: readonly number[]) {
    const { client } = await start({ counter });
    const exact = exactCounter({ client, model: MODEL });
    const calibration = new Calibration();
    for (const shape of shapes) {
      const r = render(session(shape));
      expect(await exact.calibrate(calibration, toAnthropic(r), r.tokens.total)).toBeGreaterThan(0);
    }
    const fresh = render(session(target));
    const truth = await exact.countRequest(toAnthropic(fresh));
    return {
      calibration,
      before: Math.abs(fresh.tokens.total - truth) / truth,
      after: Math.abs(calibration.correct(MODEL, fresh.tokens.total) - truth) / truth,
    };
  }

  it('calibrates the local estimate to a tokenizer that counts a fixed ratio more', async () => {
    // The "provider" tokenizer counts 30% more than the local cl100k on every text.
    const local = tiktokenCounter();
    const scaled: TokenCounter = { name: 'cl100k×1.3', count: (t) => Math.round(local.count(t) * 1.3) };
    const { calibration, before, after } = await calibrated(scaled, [[1], [2, 3], [4, 1, 2], [3, 3, 3, 1]], [2, 2, 2, 2, 2]);
    expect(calibration.stats()[MODEL]?.samples).toBe(4);
    expect(before).toBeGreaterThan(0.2);
    expect(after).toBeLessThan(0.02);
  });

  it('removes most of the error against a tokenizer that differs by content (characters / 3)', async () => {
    // Here the ratio depends on the mix of prose, JSON and code, so similar sessions calibrate best.
    const { before, after } = await calibrated(
      charCounter(3),
      [
        [2, 2, 2],
        [3, 2, 2, 1],
        [2, 3, 2, 2],
        [2, 2, 2, 2],
      ],
      [2, 2, 2, 2, 2],
    );
    expect(before).toBeGreaterThan(0.1);
    expect(after).toBeLessThan(before / 2);
  });
});

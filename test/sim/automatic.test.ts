import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { chat, M1H, M5, OPTIONS, req, text } from './helpers.js';

describe('CacheSimulator automatic caching', () => {
  it('marks the last block and reads it back as the conversation grows', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r1 = sim.send(req([text(200)], chat(3), { cache_control: M5 }), 0);
    expect(r1.explain?.markers).toMatchObject([{ auto: true, path: 'messages.2.content.0 (auto)', tokens: 230 }]);
    expect(r1.usage?.cache_creation_input_tokens).toBe(230);
    const r2 = sim.send(req([text(200)], chat(5), { cache_control: M5 }), 1000);
    expect(r2.usage).toMatchObject({ cache_read_input_tokens: 230, cache_creation_input_tokens: 20, input_tokens: 0 });
  });

  it('walks back over thinking and empty text blocks', () => {
    const sim = new CacheSimulator(OPTIONS);
    const messages: MessageParam[] = [
      { role: 'user', content: [text(10)] },
      { role: 'assistant', content: [text(10, undefined, 'a'), { type: 'text', text: '' }, { type: 'thinking', thinking: 'zz', signature: 's' }] },
    ];
    const r = sim.send(req([text(200)], messages, { cache_control: M5 }), 0);
    expect(r.explain?.markers[0]?.path).toBe('messages.1.content.0 (auto)');
    expect(r.usage).toMatchObject({ cache_creation_input_tokens: 220, input_tokens: 2 });
  });

  it('is a no-op when the last block has an explicit marker with the same TTL', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200, M5)], chat(2, 10, { 1: M5 }), { cache_control: M5 }), 0);
    expect(r.rejected).toBeNull();
    expect(r.explain?.markers).toHaveLength(2);
  });

  it('is rejected when the last block has an explicit marker with another TTL', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200)], chat(2, 10, { 1: M1H }), { cache_control: M5 }), 0);
    expect(r.rejected?.status).toBe(400);
  });

  it('writes every time and never reads when the last block changes on every request', () => {
    const sim = new CacheSimulator(OPTIONS);
    const withStamp = (n: number) =>
      req(
        [text(200)],
        [
          { role: 'user', content: [text(10)] },
          { role: 'user', content: `now: ${n}` },
        ],
        { cache_control: M5 },
      );
    sim.send(withStamp(1), 0);
    const r = sim.send(withStamp(2), 1000);
    expect(r.usage?.cache_read_input_tokens).toBe(0);
    expect(r.usage?.cache_creation_input_tokens).toBe(216);
  });
});

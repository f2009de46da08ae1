import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { M5, OPTIONS, req, text } from './helpers.js';

describe('CacheSimulator markers on blocks that cannot carry one', () => {
  it('rejects a marker on a thinking block, naming the block like the API', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(
      req(
        [text(200)],
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's', cache_control: M5 } as never, text(5)] },
          { role: 'user', content: 'go' },
        ],
      ),
      0,
    );
    expect(r.rejected?.message).toMatchInlineSnapshot(`"messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"`);
  });

  it('rejects a marker on a redacted_thinking block', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(
      req(
        [text(200)],
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xx', cache_control: M5 } as never] },
        ],
      ),
      0,
    );
    expect(r.rejected?.status).toBe(400);
    expect(r.rejected?.message).toContain('redacted_thinking.cache_control');
  });

  it('rejects a marker on an empty text block', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200)], [{ role: 'user', content: [{ type: 'text', text: '', cache_control: M5 }] }]), 0);
    expect(r.rejected?.message).toMatchInlineSnapshot(`"cache_control cannot be set for empty text blocks"`);
  });

  it('accepts a whitespace-only text block with a marker', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200)], [{ role: 'user', content: [{ type: 'text', text: ' ', cache_control: M5 }] }]), 0);
    expect(r.rejected).toBeNull();
  });
});

import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { CacheSimulator } from '../../src/sim/index.js';
import { countTokens, M5, MODEL, req, text } from './helpers.js';

const round1: MessageParam[] = [
  { role: 'user', content: [text(10, undefined, 'q')] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'let me look', signature: 's' },
      { type: 'tool_use', id: 't1', name: 'read', input: {} },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'data', cache_control: M5 }] },
];
const round2: MessageParam[] = [
  { role: 'assistant', content: [text(20, undefined, 'a')] },
  { role: 'user', content: [text(10, M5, 'n')] },
];
const unmarked: MessageParam[] = [round1[0]!, round1[1]!, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'data' }] }];

function run(keepsThinking: boolean) {
  const profile = customProfile(MODEL, { prices: { input: 1 }, minCacheableTokens: 100, keepsThinking });
  const sim = new CacheSimulator({ profile, countTokens });
  sim.send(req([text(200, M5)], round1), 0);
  return sim.send(req([text(200, M5)], [...unmarked, ...round2]), 1000);
}

describe('CacheSimulator thinking blocks on older models', () => {
  it('keeps reading the conversation when the model keeps thinking blocks', () => {
    expect(run(true).usage?.cache_read_input_tokens).toBe(200 + 10 + 11 + 10 + 4);
  });

  it('misses from the stripped thinking block on when a plain user turn arrives', () => {
    const r = run(false);
    expect(r.usage?.cache_read_input_tokens).toBe(200);
    expect(r.explain?.change).toEqual({ position: 2, tier: 'messages', cause: 'messages_changed' });
  });
});

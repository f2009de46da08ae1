import { describe, expect, it } from 'vitest';
import { generateTrace } from '../../src/synthetic/generate.js';
import { providerRuns, sessionOptions } from '../bench/judge.js';

/**
 * The judge's `--providers` runs (test/bench/judge.ts): a generated session replayed for Bedrock Converse (Claude) and
 * an OpenAI model, each request mapped by src/providers and sent through the fake server's route for that API (its
 * request checks, the open loop's thinking on Converse, its cache rules). judge-604: claude-fable-5 (binds thinking,
 * some of it redacted), two 20–30-call fan-outs, agent hides, errors; gpt-5.4 on OpenAI.
 */
describe('the judge on the other providers', () => {
  it('maps every request of a generated session to each API without a refusal or a bust (judge-604)', async () => {
    const k = 604;
    const runs = await providerRuns(generateTrace(sessionOptions(k)), k);
    expect(runs.map((r) => [r.api, r.model, r.policy])).toEqual([
      ['bedrock-converse', 'claude-fable-5', 'economy'],
      ['openai-responses', 'gpt-5.4', 'economy'],
      ['openai-chat', 'gpt-5.4', 'economy'],
    ]);
    for (const r of runs) {
      expect(r.requests, r.api).toBe(28);
      expect({ api: r.api, refused: r.refused, busts: r.busts }).toEqual({ api: r.api, refused: [], busts: [] });
    }
  });
});

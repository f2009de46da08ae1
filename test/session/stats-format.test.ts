/**
 * The stats table a new user prints after the first requests: when nothing was
 * read or written (the most common "why are my cache reads 0": a prompt below
 * the model's minimum cacheable length), it says why instead of a bare 0.0 %.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';
import { startFakeServer } from '../../src/testing/index.js';
import Anthropic from '@anthropic-ai/sdk';

async function statsOf(instructions: string): Promise<string> {
  const server = await startFakeServer({ script: [[{ type: 'text', text: 'Hi!' }]] });
  try {
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: [instructions], request: { max_tokens: 64 } });
    session.startTurn('Hello');
    await session.step(new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }));
    return session.formatStats();
  } finally {
    await server.close();
  }
}

describe('formatStats when nothing was cached', () => {
  it("says that a prompt below the model's minimum is not cached, and names plan.belowMinimum", async () => {
    const text = await statsOf('Be terse.');
    expect(text).toMatch(/hit ratio 0\.0%/);
    expect(text).toContain("nothing was read from or written to the cache: a prompt shorter than the model's minimum cacheable length");
    expect(text).toContain('plan.belowMinimum');
  });
  it('says nothing of the kind once something is written', async () => {
    const text = await statsOf('Follow the repository conventions. '.repeat(400));
    expect(text).not.toContain('nothing was read from or written');
  });
});

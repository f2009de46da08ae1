/**
 * `streamText` on `@ai-sdk/amazon-bedrock` (ConverseStream, AWS's binary event stream) through the middleware, the
 * real provider against the fake server: a tool loop with Claude's reasoning reads the cache from the second request
 * on, and the conversation the middleware stores (timeline and usage records) is the one `generateText` stores for
 * the same script.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { conversationStats } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { reasoningReads } from '../../helpers/bedrock.js';
import { agentTools, closedAfterEach, SYSTEM } from './harness.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const servers = closedAfterEach();

/** Two tool rounds that open with signed reasoning, then an answer. */
const SCRIPT = reasoningReads(['src/index.ts', 'src/mod-1.ts'], 'The change goes in src/mod-1.ts.');

/** Runs the loop through `call` (generateText or streamText); returns the server, the stored conversation and the warnings. */
async function run(stream: boolean) {
  let clock = 0;
  const server = await startFakeServer({ script: SCRIPT, now: () => (clock += 5_000) });
  servers.push(server);
  const store = new MemoryConversationStore();
  const warnings: CachepointWarning[] = [];
  let now = 0;
  const model = wrapLanguageModel({
    model: createAmazonBedrock({ region: 'us-east-1', apiKey: 'test', baseURL: server.url })(ID),
    middleware: cachepointMiddleware({ conversationId: 'c', store, now: () => (now += 5_000), onWarning: (w) => warnings.push(w) }),
  });
  const args = {
    model,
    system: SYSTEM,
    prompt: 'Where does the change go?',
    tools: agentTools(),
    stopWhen: stepCountIs(10),
    providerOptions: { bedrock: { reasoningConfig: { type: 'enabled' as const, budgetTokens: 1024 } } },
  };
  const text = stream ? await streamText(args).text : (await generateText(args)).text;
  return { server, text, record: await store.load('c'), stats: await conversationStats({ conversationId: 'c', store }), warnings };
}

describe('@ai-sdk/amazon-bedrock streamText (ConverseStream) through cachepointMiddleware', () => {
  it('reads the cache from the second request, and stores what generateText stores', async () => {
    const streamed = await run(true);
    const generated = await run(false);
    expect(streamed.warnings).toEqual([]);
    expect(streamed.text).toBe('The change goes in src/mod-1.ts.');
    const requests = streamed.server.requests;
    expect(requests.map((r) => [r.path, r.status])).toEqual([1, 2, 3].map(() => [`/model/${encodeURIComponent(ID)}/converse-stream`, 200]));
    requests.forEach((r, i) => {
      const marks = JSON.stringify(r.body).split('"cachePoint"').length - 1;
      expect(marks).toBeGreaterThanOrEqual(1);
      expect(marks).toBeLessThanOrEqual(4);
      const usage = (r.response as unknown as { usage: Record<string, number> }).usage;
      if (i > 0) expect(usage['cacheReadInputTokens']).toBeGreaterThan(0);
    });
    // The reasoning went back with the signature the stream delivered in its own delta.
    const last = requests[2]!.body as { messages: { content: Record<string, unknown>[] }[] };
    expect(JSON.stringify(last.messages[1]!.content[0])).toContain('EqQBCgIYAhIMs1');
    // The usage of every streamed step is recorded, as for generateText; the stored timelines are the same.
    expect(streamed.stats?.requests.map((q) => q.reported)).toEqual(generated.stats?.requests.map((q) => q.reported));
    expect(streamed.stats?.totals.cacheRead).toBeGreaterThan(0);
    expect(streamed.stats?.pendingUsage).toBe(false);
    expect(streamed.record?.state.turns).toEqual(generated.record?.state.turns);
  });
});

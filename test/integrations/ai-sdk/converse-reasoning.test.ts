/**
 * A Converse loop with Claude's extended thinking (`@ai-sdk/amazon-bedrock`, `reasoningConfig`): the provider keeps a
 * reasoning part's signature under `providerOptions.bedrock` (and `amazonBedrock`), not `anthropic`, and reads it back
 * from there. The middleware looked only under `anthropic`, so every call of such a loop after the first tool round
 * went through unchanged (`unmappable_prompt`: no cache point, no savings). The real provider against the fake
 * server's Converse route.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { generateText, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { mapPrompt } from '../../../src/integrations/ai-sdk/to-anthropic.js';
import { startFakeServer, type FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools } from './harness.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const SYSTEM = `You are a careful coding agent. ${'Follow the house rules. '.repeat(300)}`;
const FILE = 'export const x = 1;\n'.repeat(300);

/** One tool round whose response starts with a signed reasoning part, as the Converse provider returns it. */
function round(n: number): ModelMessage[] {
  const signature = `EqQBCgIYAhIM${n}`;
  return [
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `Read file ${n} first.`, providerOptions: { bedrock: { signature }, amazonBedrock: { signature } } },
        { type: 'tool-call', toolCallId: `tooluse_${n}`, toolName: 'Read', input: { path: `f${n}.ts` } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `tooluse_${n}`, toolName: 'Read', output: { type: 'text', value: `${n}: ${FILE}` } }] },
  ];
}

describe('@ai-sdk/amazon-bedrock (Converse) with reasoning through cachepointMiddleware', () => {
  it('maps the signed reasoning parts: every call is prepared, and the calls after the first read the cache', async () => {
    let clock = 0;
    const server = await startFakeServer({ script: [1, 2, 3].map(() => [{ type: 'text' as const, text: 'Done.' }]), now: () => (clock += 5_000) });
    servers.push(server);
    const bedrock = createAmazonBedrock({ region: 'us-east-1', apiKey: 'test', baseURL: server.url });
    const warnings: CachepointWarning[] = [];
    let now = 0;
    const model = wrapLanguageModel({
      model: bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'),
      middleware: cachepointMiddleware({
        conversationId: 'c',
        store: new MemoryConversationStore(),
        now: () => (now += 5_000),
        onWarning: (w) => warnings.push(w),
      }),
    });
    let messages: ModelMessage[] = [{ role: 'user', content: 'Read the files.' }];
    for (let n = 1; n <= 3; n++) {
      messages = [...messages, ...round(n)];
      await generateText({ model, system: SYSTEM, messages, tools: agentTools() });
    }
    expect(warnings).toEqual([]);
    const requests = server.requests.filter((r) => r.path.startsWith('/model/'));
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    requests.forEach((r, i) => {
      const body = r.body as { messages: { role: string; content: Record<string, unknown>[] }[] };
      const marks = JSON.stringify(body).split('"cachePoint"').length - 1;
      expect(marks).toBeGreaterThanOrEqual(1);
      expect(marks).toBeLessThanOrEqual(4);
      // The reasoning goes back first in its message, with its signature, as the provider wrote it.
      const first = body.messages[1]!.content[0] as { reasoningContent?: { reasoningText?: { signature?: string } } };
      expect(first.reasoningContent?.reasoningText?.signature).toBe('EqQBCgIYAhIM1');
      const usage = (r.response as unknown as { usage: Record<string, number> }).usage;
      if (i > 0) expect(usage['cacheReadInputTokens']).toBeGreaterThan(0);
    });
  });

  it('maps a redacted reasoning part (redactedData) to redacted_thinking', () => {
    const call = {
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: '', providerOptions: { bedrock: { redactedData: 'EmwKAhgBEgy3va3pzix' } } },
            { type: 'tool-call', toolCallId: 'tooluse_1', toolName: 'Read', input: { path: 'a.ts' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'tooluse_1', toolName: 'Read', output: { type: 'text', value: 'x' } }] },
      ],
    };
    const { messages } = mapPrompt(call as never, 'generate').mapped.result;
    expect(messages[1]!.content).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'tool_use', id: 'tooluse_1', name: 'Read', input: { path: 'a.ts' } },
    ]);
  });
});

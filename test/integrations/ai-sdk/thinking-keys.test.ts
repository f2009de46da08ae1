/**
 * Thinking parts are handed back to the provider by payload identity. The index keyed them by signature alone, so
 * two thinking blocks with the same signature (the fake server signs every one `fake-signature`; any provider that
 * repeats a signature) came back as the later one: the first step's thinking was sent with the second step's text,
 * a changed prefix (its cache entry never read) and a history that is not what the model said. Now the key is the
 * signature and the text. The real `ai` and `@ai-sdk/anthropic` against the fake Messages API.
 */
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware } from '../../../src/integrations/ai-sdk/index.js';
import { bigRead, bodies, closedAfterEach, fakeAnthropic, MODEL, SYSTEM } from './harness.js';

const servers = closedAfterEach();

describe('a tool loop with extended thinking through the middleware', () => {
  it('sends each step its own thinking, and each request reads what the previous one wrote', async () => {
    const { server, provider } = await fakeAnthropic({
      script: [
        [
          { type: 'thinking', thinking: 'Read a and b first.' },
          { type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a' } },
        ],
        [
          { type: 'thinking', thinking: 'Now c.' },
          { type: 'tool_use', id: 'call_2', name: 'Read', input: { path: 'c' } },
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    servers.push(server);
    const model = wrapLanguageModel({
      model: provider(MODEL),
      middleware: cachepointMiddleware({ conversationId: 't', store: new MemoryConversationStore() }),
    });
    await generateText({
      model,
      system: SYSTEM,
      prompt: 'Look.',
      tools: { Read: bigRead },
      stopWhen: stepCountIs(10),
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    });
    const sent = bodies(server);
    expect(sent).toHaveLength(3);
    const thinking = (i: number) =>
      sent[i]!.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((b) => (b.type === 'thinking' ? [b.thinking] : []));
    expect(thinking(1)).toEqual(['Read a and b first.']);
    expect(thinking(2)).toEqual(['Read a and b first.', 'Now c.']);
    const usage = server.requests.map((r) => (r.response as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } }).usage);
    for (let i = 1; i < usage.length; i++)
      expect(usage[i]!.cache_read_input_tokens, `request ${i}`).toBe(usage[i - 1]!.cache_read_input_tokens + usage[i - 1]!.cache_creation_input_tokens);
  });
});

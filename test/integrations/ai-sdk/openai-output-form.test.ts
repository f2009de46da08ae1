/**
 * `@ai-sdk/openai` sends a text or JSON tool output as a plain string, but as a one-part list when the part carries a
 * marker (`promptCacheBreakpoint`). With GPT-5.6's explicit markers, the newest tool result is a cache point in one
 * request and not in the next, so its bytes change between the two.
 *
 * Responses: the entry the first request wrote was never read, and every round re-wrote the conversation after the
 * instructions (a bust every round). The middleware now sends every tool output in list form, the marker on its last
 * part.
 *
 * Chat: the provider has no list form to ask for, so the tool message does change form. What that costs depends on
 * whether the provider reads a string and a one-part text list as the same prefix: the fake server's simulator does
 * (both are the same text), OpenAI's docs do not say. Pinned: the form changes (so the docs' advice,
 * `openai.responses`, stays honest), and in the fake server each request still reads everything the previous one
 * read and wrote (the cache points themselves are right). The real provider against the fake server.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { bigRead, closedAfterEach } from './harness.js';

const servers = closedAfterEach();

const tools = {
  Read: bigRead,
  Stat: tool({
    description: 'Stats a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => ({ path, lines: 200, words: Array.from({ length: 150 }, (_, i) => `w${i}`) }),
  }),
};

interface Usage {
  cached_tokens: number;
  cache_write_tokens: number;
}

/** A 4-request tool loop on GPT-5.6 through the middleware: each request's body and its cache usage. */
async function loop(api: 'responses' | 'chat'): Promise<{ bodies: Record<string, unknown>[]; usage: Usage[] }> {
  let clock = 0;
  const server = await startFakeServer({
    script: [
      [{ type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a.ts' } }],
      [{ type: 'tool_use', id: 'call_2', name: 'Stat', input: { path: 'b.ts' } }],
      [{ type: 'tool_use', id: 'call_3', name: 'Read', input: { path: 'c.ts' } }],
      [{ type: 'text', text: 'Done.' }],
    ],
    now: () => (clock += 5_000),
  });
  servers.push(server);
  const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
  const warnings: CachepointWarning[] = [];
  let now = 0;
  const model = wrapLanguageModel({
    model: api === 'responses' ? openai.responses('gpt-5.6-terra') : openai.chat('gpt-5.6-terra'),
    middleware: cachepointMiddleware({
      conversationId: `form-${api}`,
      store: new MemoryConversationStore(),
      now: () => (now += 5_000),
      onWarning: (w) => warnings.push(w),
    }),
  });
  await generateText({ model, instructions: `You are careful. ${'Rules. '.repeat(800)}`, prompt: 'Go', tools, stopWhen: stepCountIs(10) });
  expect(warnings).toEqual([]);
  const requests = server.requests.filter((r) => r.path === (api === 'responses' ? '/v1/responses' : '/v1/chat/completions'));
  expect(requests).toHaveLength(4);
  const usage = requests.map((r) => {
    const u = (r.response as unknown as { usage: Record<string, Usage> }).usage;
    return (u['input_tokens_details'] ?? u['prompt_tokens_details'])!;
  });
  return { bodies: requests.map((r) => r.body as Record<string, unknown>), usage };
}

function expectCarriedOver(usage: readonly Usage[]): void {
  for (let i = 1; i < usage.length; i++) expect(usage[i]!.cached_tokens).toBeGreaterThanOrEqual(usage[i - 1]!.cached_tokens + usage[i - 1]!.cache_write_tokens);
}

describe('@ai-sdk/openai with GPT-5.6 markers: tool outputs and the reads', () => {
  it('Responses: every tool output a list, marked or not; each request reads what the previous one read and wrote', async () => {
    const { bodies, usage } = await loop('responses');
    expectCarriedOver(usage);
    for (const body of bodies)
      for (const item of (body as { input: { type?: string; output?: unknown }[] }).input)
        if (item.type === 'function_call_output') expect(Array.isArray(item.output)).toBe(true);
  });

  it('Chat: the tool messages change form with their marker; the fake server reads each request’s whole predecessor', async () => {
    const { bodies, usage } = await loop('chat');
    const forms = bodies.map((b) =>
      (b as { messages: { role: string; content: unknown }[] }).messages
        .filter((m) => m.role === 'tool')
        .map((m) => (typeof m.content === 'string' ? 'string' : 'list')),
    );
    // call_1's result: marked (the newest stable block) in request 2, a plain string from request 3 on.
    expect(forms[1]).toEqual(['list']);
    expect(forms[2]![0]).toBe('string');
    expect(forms[3]).toEqual(['string', 'string', 'list']);
    expectCarriedOver(usage);
  });
});

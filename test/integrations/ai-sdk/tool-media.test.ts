/**
 * A tool that returns an image (a screenshot, a rendered page) or a PDF: its result goes to the model as image or
 * document blocks inside the tool_result. The middleware mapped only text in tool results, so from the first such
 * result on, every call of the conversation went through unprepared (`unmappable_prompt`). Now an image or PDF part of
 * a tool result is read by the engine as that block and the result handed back to the provider as it was. The real
 * `ai` and `@ai-sdk/anthropic` against the fake Messages API, which checks the sources as the API does.
 */
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { bigRead, bodies, closedAfterEach, fakeAnthropic, MODEL, SYSTEM } from './harness.js';

const servers = closedAfterEach();

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF').toString('base64');

const Screenshot = tool({
  description: 'Takes a screenshot of the page and returns it with its PDF print',
  inputSchema: jsonSchema<{ url: string }>({ type: 'object', properties: { url: { type: 'string' } }, required: ['url'] }),
  execute: async ({ url }) => ({ url }),
  toModelOutput: ({ output }) => ({
    type: 'content',
    value: [
      { type: 'text', text: `Screenshot of ${(output as { url: string }).url}` },
      { type: 'image-data', data: PNG, mediaType: 'image/png' },
      { type: 'file-data', data: PDF, mediaType: 'application/pdf' },
    ],
  }),
});

describe('a tool loop whose tool returns an image and a PDF', () => {
  it('is prepared on every call: no warning, each request reads what the previous one read and wrote', async () => {
    const { server, provider } = await fakeAnthropic({
      script: [
        [{ type: 'tool_use', id: 'call_1', name: 'Screenshot', input: { url: 'https://example.com' } }],
        [{ type: 'tool_use', id: 'call_2', name: 'Read', input: { path: 'a.ts' } }],
        [{ type: 'tool_use', id: 'call_3', name: 'Screenshot', input: { url: 'https://example.com/2' } }],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    servers.push(server);
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({
      model: provider(MODEL),
      middleware: cachepointMiddleware({ conversationId: 'shots', store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
    });
    await generateText({ model, system: SYSTEM, prompt: 'Check the page.', tools: { Screenshot, Read: bigRead }, stopWhen: stepCountIs(10) });
    expect(warnings).toEqual([]);
    const sent = bodies(server);
    expect(sent).toHaveLength(4);
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    const result = sent[1]!.messages[2]!.content as { type: string; content?: { type: string; source?: unknown }[] }[];
    expect(result[0]!.content!.map((b) => b.type)).toEqual(['text', 'image', 'document']);
    const usage = server.requests.map((r) => (r.response as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } }).usage);
    for (let i = 1; i < usage.length; i++)
      expect(usage[i]!.cache_read_input_tokens, `request ${i}`).toBe(usage[i - 1]!.cache_read_input_tokens + usage[i - 1]!.cache_creation_input_tokens);
  });
});

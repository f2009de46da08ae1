/**
 * Images and documents in a chat through the middleware. A user message with a file part (an image, a PDF, a text
 * document) did not map (`unmappable_prompt`): the whole conversation, every call of every later turn, went through
 * unprepared, with no cache points at all. Now a file part the provider sends as an image or document block is
 * carried through the engine as that block and handed back to the provider as the part it was (its own options kept),
 * so the request is what the provider makes of the caller's parts, with the engine's markers. The real `ai` and
 * `@ai-sdk/anthropic` against the fake Messages API, which checks image and document sources as the API does.
 */
import { generateText, stepCountIs, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { conversationStats } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { agentTools, bodies, closedAfterEach, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

const servers = closedAfterEach();

// A 1×1 PNG, and a minimal PDF.
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF').toString('base64');

type Block = { type: string; source?: { type: string; media_type?: string; data?: string; url?: string }; title?: string };

for (const mode of ['generate', 'stream'] as const) {
  describe(`a chat with an image and documents (${mode})`, () => {
    it('is prepared from its first call: cache reads after the first, the files sent as the provider sends them', async () => {
      const { server, provider } = await fakeAnthropic({ script: script(2, 2) });
      servers.push(server);
      const store = new MemoryConversationStore();
      const warnings: CachepointWarning[] = [];
      const model = wrapLanguageModel({
        model: provider(MODEL),
        middleware: cachepointMiddleware({ conversationId: mode, store, onWarning: (w) => warnings.push(w) }),
      });
      const messages: ModelMessage[] = [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here is the screenshot, the spec and the notes.' },
            { type: 'image', image: PNG, mediaType: 'image/png' },
            { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'spec.pdf' },
            { type: 'file', data: Buffer.from('Remember the edge cases.').toString('base64'), mediaType: 'text/plain' },
          ],
        },
      ];
      for (let t = 1; t <= 2; t++) {
        if (t === 2)
          messages.push({
            role: 'user',
            content: [
              { type: 'text', text: 'And the second screenshot.' },
              { type: 'image', image: PNG },
            ],
          });
        const call = { model, system: SYSTEM, messages, tools: agentTools(), stopWhen: stepCountIs(10) };
        if (mode === 'generate') messages.push(...(await generateText(call)).responseMessages);
        else {
          const result = streamText(call);
          await result.consumeStream();
          messages.push(...(await result.responseMessages));
        }
      }
      expect(warnings).toEqual([]);
      const sent = bodies(server);
      expect(sent).toHaveLength(6);
      expect(server.requests.every((r) => r.status === 200)).toBe(true);
      const reads = server.requests.map((r) => (r.response as { usage: { cache_read_input_tokens?: number } }).usage.cache_read_input_tokens ?? 0);
      for (const [i, r] of reads.entries()) if (i > 0) expect(r, `request ${i}`).toBeGreaterThan(0);
      for (const b of sent) expect(JSON.stringify(b).split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
      const first = (sent.at(-1)!.messages[0]!.content as Block[]).map((b) => ({ ...b, cache_control: undefined }));
      expect(first.map((b) => b.type)).toEqual(['text', 'image', 'document', 'document']);
      expect(first[1]!.source).toEqual({ type: 'base64', media_type: 'image/png', data: Buffer.from(PNG).toString('base64') });
      expect(first[2]).toMatchObject({ source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'spec.pdf' });
      expect(first[3]!.source).toEqual({ type: 'text', media_type: 'text/plain', data: 'Remember the edge cases.' });
      expect((await conversationStats({ conversationId: mode, store }))?.totals.requests).toBe(6);
    });
  });
}

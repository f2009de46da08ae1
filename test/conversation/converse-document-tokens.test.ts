/**
 * `prepareConverse` counts a Converse document of a text format (csv, md, html, txt) sent as bytes by its text, as
 * Bedrock bills it: the plan's token count, which places the cache points and checks the window, against the real
 * tokenizer (js-tiktoken's cl100k_base). Counted as PDF pages it was 3,100 tokens for a 3-line CSV and a fraction of
 * a large one.
 */
import type { Message } from '@aws-sdk/client-bedrock-runtime';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepareConverse } from '../../src/conversation/prepare-converse.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const cl100k = getEncoding('cl100k_base');
const truth = (text: string): number => cl100k.encode(text).length;

function rows(n: number): string {
  return Array.from({ length: n }, (_, i) => `${i},item-${(i * 7919) % 10007},${((i * 37) % 1000) / 10},in stock`).join('\n');
}

async function totalTokens(document?: object): Promise<number> {
  const messages: Message[] = [{ role: 'user', content: [{ text: 'Summarize this file.' }, ...(document ? [{ document } as never] : [])] }];
  const { plan } = await prepareConverse(
    { modelId: ID, system: [{ text: 'You are careful.' }], messages, inferenceConfig: { maxTokens: 256 } },
    { conversationId: 'doc', store: new MemoryConversationStore() },
  );
  return plan.tokens.total;
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('prepareConverse: text documents as bytes', () => {
  it.each(['csv', 'md', 'html', 'txt'] as const)('counts a small %s document by its text (its name is text too)', async (format) => {
    const text = rows(3);
    const added = (await totalTokens({ format, name: 'stock', source: { bytes: bytes(text) } })) - (await totalTokens());
    expect(added).toBe(truth(`stock\n${text}`) + 3); // 3: the counter's per-block framing
  });

  it.each(['csv', 'md', 'html', 'txt'] as const)('counts a large %s document by its text, within the estimate’s ±3 %%', async (format) => {
    const text = rows(12_000); // ~420 KB
    const added = (await totalTokens({ format, name: 'stock', source: { bytes: bytes(text) } })) - (await totalTokens());
    expect(Math.abs(added - truth(text)) / truth(text)).toBeLessThan(0.03);
  });

  it('counts bytes and the same text sent as a text source the same', async () => {
    const text = rows(200);
    expect(await totalTokens({ format: 'csv', name: 'stock', source: { bytes: bytes(text) } })).toBe(
      await totalTokens({ format: 'csv', name: 'stock', source: { text } }),
    );
  });
});

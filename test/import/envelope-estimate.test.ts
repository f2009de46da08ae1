/**
 * A Claude Code transcript has no system prompt or tool definitions; the importer sizes a placeholder as the first
 * response's reported prompt minus the messages before it. Those messages must be counted the way the engine counts
 * them, images included (a pasted screenshot is a fixed ~1,600 tokens, not the length of its base64 text), so that
 * the first replayed request is as large as the prompt the provider reported (the placeholder text is measured
 * as a whole, as the engine counts it, not paragraph by paragraph).
 */
import { describe, expect, it } from 'vitest';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';

const REPORTED = { input_tokens: 4, cache_creation_input_tokens: 20_000, cache_read_input_tokens: 0, output_tokens: 50 };
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.alloc(30_000, 7).toString('base64') } };

function transcript(prompt: unknown[]): string {
  const rec = (type: string, at: string, message: object) => ({ parentUuid: null, isSidechain: false, sessionId: 's', type, timestamp: at, message });
  return [
    rec('user', '2026-03-02T09:00:00.000Z', { role: 'user', content: prompt }),
    rec('assistant', '2026-03-02T09:00:05.000Z', {
      model: 'claude-sonnet-4-6',
      id: 'm1',
      role: 'assistant',
      content: [{ type: 'text', text: 'The button is misaligned.' }],
      usage: REPORTED,
    }),
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
}

async function firstRequestTokens(text: string): Promise<number> {
  const [trace] = importLog(text, 'session.jsonl').traces;
  const [first] = await replayAll(parseTrace(formatImported(trace!)));
  return first!.rendered.tokens.total;
}

describe('claude-code import: the estimated envelope', () => {
  it('makes the first request as large as the reported prompt when the first message carries an image', async () => {
    const reported = REPORTED.input_tokens + REPORTED.cache_creation_input_tokens + REPORTED.cache_read_input_tokens;
    const textOnly = await firstRequestTokens(transcript([{ type: 'text', text: 'What is wrong in this screenshot?' }]));
    const withImage = await firstRequestTokens(transcript([{ type: 'text', text: 'What is wrong in this screenshot?' }, image]));
    // The placeholder is measured text: within 1% of the report either way, image or not.
    expect(Math.abs(textOnly - reported)).toBeLessThan(reported / 100);
    expect(Math.abs(withImage - reported)).toBeLessThan(reported / 100);
  });
});

/**
 * A response the Session door refuses (a block the API would refuse when sent back: here a thinking block whose
 * signature the loop dropped) changes nothing: its usage is not recorded, so the loop that fixes the block and
 * records the response again counts the request once, and the calibration observes it once.
 */
import { describe, expect, it } from 'vitest';
import { TimelineError } from '../../src/errors.js';
import type { Message } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';

const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const } }];
const usage = { input_tokens: 50, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const use = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } };
const response = (thinking: Record<string, unknown>) =>
  ({ id: 'msg_1', type: 'message', role: 'assistant', content: [thinking, use], stop_reason: 'tool_use', usage }) as unknown as Message;

describe('Session.recordResponse refused', () => {
  it('records no usage: the corrected response is counted once', async () => {
    const s = new Session({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools, request: { max_tokens: 100 } }).startTurn('Read a.ts.');
    await s.request();
    expect(() => s.recordResponse(response({ type: 'thinking', thinking: 'The file first.' }))).toThrow(TimelineError);
    expect(s.stats().requests).toHaveLength(0);
    s.recordResponse(response({ type: 'thinking', thinking: 'The file first.', signature: 'sig' }));
    expect(s.stats().requests).toHaveLength(1);
    expect(s.stats().requests[0]!.reported.input).toBe(50);
  });
});

/**
 * The beta `fallback` and `mcp_tool_listing` blocks are sent back as the response carried them, and SDK 1.14's request
 * types give them no `cache_control` (`BetaFallbackBlockParam`, `BetaMCPToolListingBlockParam`; read 2026-12-01), as
 * they give thinking none: the API refuses the extra field. A response ending in one put ② (and the simulator's
 * markers) on it. A cache point is moved back off them as it is off thinking, through prepare and Session.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import type { MessageParam } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';
import { isMarkable } from '../../src/sim/prefix.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';

const fallback = { type: 'fallback', from: { model: 'claude-opus-4-5' }, to: { model: 'claude-sonnet-4-5' } };
const listing = { type: 'mcp_tool_listing', mcp_server_name: 'docs', tools: [{ name: 'search', input_schema: { type: 'object' } }] };

describe.each([
  ['fallback', fallback],
  ['mcp_tool_listing', listing],
])('a response ending in a %s block', (type, block) => {
  it('the fake server refuses a marker on it (the oracle)', () => {
    const messages = [
      { role: 'user', content: 'Go.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hi.' },
          { ...block, cache_control: { type: 'ephemeral' } },
        ],
      },
      { role: 'user', content: 'Next.' },
    ];
    expect(validateRequest({ model: 'claude-sonnet-4-5', max_tokens: 100, messages } as never)?.message).toBe(
      `messages.1.content.1.${type}.cache_control: Extra inputs are not permitted`,
    );
  });

  it('prepare moves the previous-turn point back off it', async () => {
    const messages = [
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }, block] },
      { role: 'user', content: 'Next.' },
    ];
    const { params } = await prepare(
      { model: 'claude-sonnet-4-5', max_tokens: 100, system: 'Be brief.', messages: messages as MessageParam[] },
      {
        conversationId: 'c',
        store: new MemoryConversationStore(),
      },
    );
    expect(validateRequest(params)?.message).toBeUndefined();
    const sent = (params.messages[1]!.content as { type: string; cache_control?: unknown }[]).map((b) => [b.type, b.cache_control !== undefined]);
    expect(sent).toEqual([
      ['text', true],
      [type, false],
    ]);
  });

  it('Session moves it back too, and the simulator does not count it as markable', async () => {
    const session = new Session({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools: [], request: { max_tokens: 100 } });
    session.startTurn('Go.');
    session.recordResponse({
      content: [{ type: 'text', text: 'Hi.' }, block],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 5 },
    } as never);
    session.startTurn('Next.');
    expect(validateRequest(await session.request())?.message).toBeUndefined();
    expect(isMarkable(block)).toBe(false);
  });
});

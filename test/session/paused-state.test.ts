/**
 * A Session holding a `pause_turn` response keeps it outside its state (the timeline has no half-finished round):
 * `session.state` alone, continued with the pure functions, would drop the paused content (closing-note-12,
 * "Noticed and left alone"). `session.paused` exposes it, and `state` + `paused` give the request `request()` sends.
 */
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { Session } from '../../src/session/session.js';

const srvUse = { type: 'server_tool_use', id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', name: 'web_search', input: { query: 'weather' } };
const tools = [{ type: 'web_search_20250305', name: 'web_search' }];

describe('a Session holding a paused turn', () => {
  it('exposes the paused content; state + paused rebuild the request it sends', async () => {
    const session = new Session({
      model: 'claude-sonnet-4-5',
      instructions: ['Be brief.'],
      tools: tools as never,
      request: { max_tokens: 100 },
      now: () => 5_000,
    });
    session.startTurn('What is the weather?');
    await session.request();
    expect(session.paused).toBeUndefined();
    session.recordResponse({ content: [srvUse], stop_reason: 'pause_turn', usage: { input_tokens: 10, output_tokens: 5 } } as never);
    // Not in the state: the turn still has no round.
    expect(session.state.turns.at(-1)!.rounds).toHaveLength(0);
    expect(session.paused).toEqual([srvUse]);
    const state = session.state;
    const sent = await session.request();
    expect(sent.messages.at(-1)).toEqual({ role: 'assistant', content: [srvUse] });
    // Continued from the state alone, the paused content must be added back as the request() door does.
    const own = toAnthropic(render(state, { now: 5_000 }), { max_tokens: 100 });
    own.messages.push({ role: 'assistant', content: [...session.paused!] as never });
    expect(JSON.stringify(own)).toBe(JSON.stringify(sent));
    // Recorded with its continuation: no longer held.
    session.recordResponse({ content: [{ type: 'text', text: 'Sunny.' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } } as never);
    expect(session.paused).toBeUndefined();
    expect(session.state.turns.at(-1)!.rounds).toHaveLength(1);
  });
});

/**
 * prepare.ts keeps the empty timelines of the last {@link INITIALS}-many envelopes new conversations started from
 * (`initials`), module-level: bounded, so a process that sees many envelopes (a tool catalog per tenant, a system
 * prompt with a date in it) holds only the last few. A hit is visible as the same tool objects in the request (a
 * state shares its envelope's blocks); an envelope pushed out is built afresh.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';

const tools = () => [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } },
  // The last tool carries the tool catalog's marker on a first request (a copy): the first one is compared.
  { name: 'Grep', description: 'Searches files.', input_schema: { type: 'object' as const, properties: { pattern: { type: 'string' } } } },
];

/** The first request of a new conversation whose system prompt is `system`: its first tool object. */
async function firstTool(system: string, id: string): Promise<unknown> {
  const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, system, tools: tools(), messages: [{ role: 'user' as const, content: 'Find the bug' }] };
  const { params: out } = await prepare(params, { conversationId: id, store: new MemoryConversationStore(), now: 0 });
  return (out.tools as unknown[])[0];
}

describe('the empty timelines new conversations start from', () => {
  it('are kept for the last few envelopes only: an older one is built afresh', async () => {
    const first = await firstTool('Envelope 0.', 'a0');
    // The same envelope again: started from the kept timeline (its very tool objects).
    expect(await firstTool('Envelope 0.', 'b0')).toBe(first);
    // Eight other envelopes since: envelope 0 is no longer kept.
    for (let i = 1; i <= 8; i++) await firstTool(`Envelope ${i}.`, `a${i}`);
    const later = await firstTool('Envelope 8.', 'b8');
    expect(await firstTool('Envelope 0.', 'c0')).not.toBe(first);
    // The newest is kept.
    expect(await firstTool('Envelope 8.', 'c8')).toBe(later);
  });

  it('keep the envelopes last used, not the last built: a busy envelope stays while others come and go', async () => {
    const busy = await firstTool('Busy envelope.', 'busy0');
    // Three other envelopes between every new conversation of the busy one: it is always among the last four used.
    for (let round = 1; round <= 3; round++) {
      for (let i = 1; i <= 3; i++) await firstTool(`Tenant ${round}-${i}.`, `t${round}-${i}`);
      expect(await firstTool('Busy envelope.', `busy${round}`)).toBe(busy);
    }
  });
});

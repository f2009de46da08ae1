/**
 * prepare resolves its render options once for the values a loop passes on every request (not on every request):
 * whatever the options, each request is rendered with exactly the options it was given.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type PrepareOptions } from '../../src/conversation/prepare.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';
import { requests } from './store-contract.js';

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS };
const history = requests(3, 5);
/** One minute between requests (the cache stays warm). */
const at = (k: number) => 1_000_000 + 60_000 * k;

async function alone(render: () => NonNullable<PrepareOptions['render']>): Promise<string[]> {
  const store = new MemoryConversationStore();
  const out: string[] = [];
  for (let k = 0; k < history.length; k++) {
    const { params } = await prepare({ ...base, messages: history[k]! }, { conversationId: 'alone', store, now: at(k), render: render() });
    out.push(JSON.stringify(params));
  }
  return out;
}

describe('prepare: render options', () => {
  it('two conversations interleaved with other options (new objects per request, as a loop writes them) each get what they get alone', async () => {
    const near = await alone(() => ({ preTailOffset: 1 }));
    const usual = await alone(() => ({ preTailOffset: 4 }));
    // The two place cache point ③ differently on some requests (or this test could not see a mix-up).
    expect(near.filter((p, k) => p !== usual[k]!).length).toBeGreaterThan(0);
    const store = new MemoryConversationStore();
    for (let k = 0; k < history.length; k++) {
      for (const [id, preTailOffset, want] of [
        ['n', 1, near],
        ['u', 4, usual],
      ] as const) {
        const { params } = await prepare({ ...base, messages: history[k]! }, { conversationId: id, store, now: at(k), render: { preTailOffset } });
        expect(JSON.stringify(params), `${id} request ${k}`).toBe(want[k]);
      }
    }
  });

  it('a value changed in place on the same options object is seen at the next request', async () => {
    const near = await alone(() => ({ preTailOffset: 1 }));
    const usual = await alone(() => ({ preTailOffset: 4 }));
    // They differ on some requests, not on the first: from the second on, all is preTailOffset 1's.
    expect(near.some((p, k) => p !== usual[k])).toBe(true);
    expect(near[0]).toBe(usual[0]);
    const store = new MemoryConversationStore();
    const render = { preTailOffset: 4 };
    for (let k = 0; k < history.length; k++) {
      const { params } = await prepare({ ...base, messages: history[k]! }, { conversationId: 'v', store, now: at(k), render });
      expect(JSON.stringify(params), `request ${k}`).toBe(near[k]);
      render.preTailOffset = 1;
    }
  });

  it('a nested option changed in place is seen at the next request', async () => {
    const store = new MemoryConversationStore();
    const render: { ttl: { envelope: '5m' | '1h' } } = { ttl: { envelope: '5m' } };
    const send = async (k: number) =>
      JSON.stringify((await prepare({ ...base, messages: history[k]! }, { conversationId: 't', store, now: at(k), render })).params);
    expect(await send(0)).not.toContain('"ttl":"1h"');
    expect(await send(1)).not.toContain('"ttl":"1h"');
    render.ttl.envelope = '1h';
    expect(await send(2)).toContain('"ttl":"1h"');
  });

  it('a clock that is not a number is refused at every request, not only the first', async () => {
    const store = new MemoryConversationStore();
    const render = { preTailOffset: 4 };
    await prepare({ ...base, messages: history[0]! }, { conversationId: 'n', store, now: at(0), render });
    await expect(prepare({ ...base, messages: history[1]! }, { conversationId: 'n', store, now: Number.NaN, render })).rejects.toThrow(InvalidOptionError);
    await expect(prepare({ ...base, messages: history[1]! }, { conversationId: 'n', store, now: Number.NaN, render })).rejects.toThrow(/now/);
  });
});

/** ToolCache, runToolUses (the Anthropic glue) and stats. */
import { describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { fakeClock, opts, registerCodingTools } from './helpers.js';

describe('ToolCache.runToolUses', () => {
  it('answers a wave of tool_use blocks in order, through the cache, with the current ids', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const files = new Map([
      ['a.ts', 'A'],
      ['b.ts', 'B'],
    ]);
    const handlers = {
      Read: async ({ path }: { path: string }) => files.get(path) ?? { content: `ENOENT ${path}`, isError: true },
      Edit: async ({ path }: { path: string }) => {
        if (!files.has(path)) throw new Error(`no such file ${path}`);
        return 'edited';
      },
    };
    const seen: string[] = [];
    const wave1 = await cache.runToolUses(
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: 'zz.ts' } },
        { type: 'tool_use', id: 'toolu_3', name: 'Edit', input: { path: 'nope.ts' } },
        { type: 'tool_use', id: 'toolu_4', name: 'Lint', input: {} },
      ],
      handlers,
      { scope: 's', onResult: (r) => seen.push(`${r.callId}:${r.cache.type}`) },
    );
    expect(wave1).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT zz.ts', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: 'Error: no such file nope.ts', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_4', content: 'Error: no handler for tool "Lint"', is_error: true },
    ]);
    expect(seen.sort()).toEqual(['toolu_1:miss', 'toolu_2:miss']);

    cache.advanceTurn();
    const wave2 = await cache.runToolUses([{ type: 'tool_use', id: 'toolu_9', name: 'Read', input: { path: 'a.ts' } }], handlers, { scope: 's' });
    // Not cached in wave 1: the failed Edit there may have written half-way, so it invalidated while the read ran.
    expect(wave2).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'A' }]);
    const wave3 = await cache.runToolUses([{ type: 'tool_use', id: 'toolu_10', name: 'Read', input: { path: 'a.ts' } }], handlers, { scope: 's' });
    expect(wave3).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_10', content: 'A\n[cached]' }]);
  });
});

describe('ToolCache.stats', () => {
  it('is a plain snapshot and prints as a table', async () => {
    const cache = new ToolCache({ now: fakeClock().now });
    registerCodingTools(cache);
    await cache.call('Read', { path: 'a' }, async () => ({ content: 'A', durationMs: 340 }), opts('1'));
    await cache.call('Read', { path: 'a' }, async () => 'A', opts('2'));
    await cache.call('Edit', { path: 'a', n: fileTag('a') }, async () => 'ok', opts('3'));
    const s = cache.stats();
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(cache.formatStats()).toMatchInlineSnapshot(`
      "tool     hits  misses  shared  bypassed  stale drops  evict write  evict expired  evict capacity  evict corrupt  writes  failed writes  store errors  hit rate  time saved
      Edit        0       0       0         1            0            0              0               0              0       1              0             0         -        0 ms
      Read        1       1       0         0            0            1              0               0              0       0              0             0     50.0%      340 ms
      (total)     1       1       0         1            0            1              0               0              0       1              0             0     50.0%      340 ms"
    `);
  });
});

describe('ToolCache.runToolUses typing', () => {
  it('accepts the content of an SDK Message as it comes', async () => {
    const cache = new ToolCache();
    const content: import('@anthropic-ai/sdk/resources/messages/messages').ContentBlock[] = [{ type: 'text', text: 'hi', citations: null }];
    expect(await cache.runToolUses(content, {}, { scope: 's' })).toEqual([]);
  });
});

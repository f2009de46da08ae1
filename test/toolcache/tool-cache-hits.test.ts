/** ToolCache, pass-through and hits: what a call of an undeclared, non-cacheable or cacheable tool returns, and how a hit is replayed. */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { counting, fakeClock, opts, registerCodingTools } from './helpers.js';

describe('ToolCache.call: pass-through', () => {
  it('runs undeclared and non-cacheable tools every time and returns their output untouched', async () => {
    const cache = new ToolCache();
    cache.register('Peek', { reads: ['file'] });
    const bash = counting({ content: [{ type: 'text', text: 'ls output' }], isError: false });
    const r1 = await cache.call('Bash', { cmd: 'ls' }, bash, opts('1'));
    const r2 = await cache.call('Bash', { cmd: 'ls' }, bash, opts('2'));
    expect(bash.runs).toBe(2);
    expect(r2).toMatchObject({ content: [{ type: 'text', text: 'ls output' }], cache: { type: 'bypass', reason: 'undeclared' } });
    expect(r1.content).toEqual(r2.content);
    const peek = counting('x');
    await cache.call('Peek', { p: 1 }, peek, opts('3'));
    expect((await cache.call('Peek', { p: 1 }, peek, opts('4'))).cache).toEqual({ type: 'bypass', reason: 'not_cacheable' });
    expect(peek.runs).toBe(2);
    expect(cache.stats().perTool.Bash?.bypassed).toBe(2);
  });

  it('requires a scope and a call id on every call', async () => {
    const cache = new ToolCache();
    await expect(cache.call('X', {}, async () => '', { callId: '1' } as never)).rejects.toThrow(InvalidOptionError);
    await expect(cache.call('X', {}, async () => '', { scope: '' } as never)).rejects.toThrow(/callId/);
  });

  it('refuses to register a tool twice', () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    expect(() => cache.register('Read', { cacheable: true, ttl: { turns: 1 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read: is already registered; register each tool once]`,
    );
  });
});

describe('ToolCache.call: hits', () => {
  it('appends the marker on a new line to text and as a final text part (with its newline) to multi-part results, re-stamps the id, reports the original duration', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    cache.register('Shot', { cacheable: true, ttl: { turns: 2 } });
    cache.register('Empty', { cacheable: true, ttl: { turns: 2 } });
    const parts = [
      { type: 'text', text: 'screenshot' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
    ];
    const shot = async () => {
      clock.advance(75);
      return parts;
    };
    await cache.call('Shot', { url: 'x' }, shot, opts('first'));
    clock.advance(5000);
    const hit = await cache.call('Shot', { url: 'x' }, shot, opts('second'));
    expect(hit).toEqual({
      tool: 'Shot',
      callId: 'second',
      content: [...parts, { type: 'text', text: '\n[cached]' }],
      isError: false,
      durationMs: 75,
      cache: { type: 'hit', insertedTurn: 0, insertedAtMs: 1_700_000_000_000 },
    });
    await cache.call('Empty', {}, async () => '', opts('e1'));
    expect((await cache.call('Empty', {}, async () => '', opts('e2'))).content).toBe('[cached]');
  });

  it('uses the duration a tool reports about itself', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    await cache.call('Read', { path: 'a' }, async () => ({ content: 'A', durationMs: 340 }), opts('1'));
    const hit = await cache.call('Read', { path: 'a' }, async () => 'never', opts('2'));
    expect(hit).toMatchObject({ content: 'A\n[cached]', durationMs: 340 });
    expect(cache.stats().timeSavedMs).toBe(340);
  });

  it('hits for two spellings of one call; never across scopes', async () => {
    const cache = new ToolCache();
    cache.register('Search', { cacheable: true, ttl: { turns: 3 }, reads: ['doc:*'] });
    const search = counting((n: number) => `results #${n}`);
    await cache.call('Search', { q: 'x', opts: { limit: 10, sort: 'rel' } }, search, opts('1', 'tenant-a'));
    const same = await cache.call('Search', JSON.parse('{"opts":{"sort":"rel","limit":10},"q":"x"}'), search, opts('2', 'tenant-a'));
    expect(same.cache.type).toBe('hit');
    const other = await cache.call('Search', { q: 'x', opts: { limit: 10, sort: 'rel' } }, search, opts('3', 'tenant-b'));
    expect(other).toMatchObject({ content: 'results #2', cache: { type: 'miss' } });
    expect(search.runs).toBe(2);
  });

  it('does not let a caller corrupt the cache by mutating what it received', async () => {
    const cache = new ToolCache();
    cache.register('T', { cacheable: true, ttl: { turns: 3 } });
    const r = await cache.call('T', {}, async () => [{ type: 'text', text: 'v1' }], opts('1'));
    (r.content as unknown as Array<{ text: string }>)[0]!.text = 'mutated by caller';
    const hit = await cache.call('T', {}, async () => 'never', opts('2'));
    (hit.content as unknown as Array<{ text: string }>)[0]!.text = 'mutated again';
    expect((await cache.call('T', {}, async () => 'never', opts('3'))).content).toEqual([
      { type: 'text', text: 'v1' },
      { type: 'text', text: '\n[cached]' },
    ]);
  });
});

/**
 * runToolUses with a handler whose result no tool_result can hold (a number, `true`, `{}`, `{ content: 7 }`,
 * null): it was put into the block as it was (`content: 5`), which the API refuses with a 400, and the value was
 * "inserted" into the cache, where it never hit (the Redis store warned decode_failed and deleted it each time).
 * Now the handler's bug is thrown to the caller naming `handlers.<tool>` and the call, as Session.runTools does.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import type { ToolRunner } from '../../src/toolcache/tool-cache.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';

const uses = [
  { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { path: 'a.ts' } },
  { type: 'tool_use', id: 'toolu_b', name: 'Count', input: { dir: 'src' } },
] as const;

function cache(): ToolCache {
  return new ToolCache().register('Count', { cacheable: true, ttl: { turns: 5 } });
}

describe('ToolCache.runToolUses: a handler result a tool_result cannot hold', () => {
  for (const count of [42, true, {}, { content: 7 }, null]) {
    it(`${JSON.stringify(count)} is thrown naming handlers.Count and the call`, async () => {
      const handlers = { Read: () => 'export const a = 1;', Count: (() => count) as ToolRunner<never> };
      const err = await cache()
        .runToolUses(uses, handlers, { scope: '' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('handlers.Count');
      expect((err as Error).message).toContain('toolu_b');
      expect((err as Error).message).toMatch(/a string, an array of content blocks, or \{ content, isError \}/);
    });
  }

  it('a string, blocks, { content, isError } and a throwing handler still answer (control)', async () => {
    for (const count of ['3', [{ type: 'text', text: '3' }], { content: 'no', isError: true }]) {
      const handlers = { Read: () => 'export const a = 1;', Count: (() => count) as ToolRunner<never> };
      const results = await cache().runToolUses(uses, handlers, { scope: '' });
      expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
    }
    const thrown = await cache().runToolUses(
      uses,
      {
        Read: () => 'a',
        Count: () => {
          throw new Error('disk gone');
        },
      },
      { scope: '' },
    );
    expect(thrown[1]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_b', content: 'Error: disk gone', is_error: true });
  });
});

describe('ToolCache.runToolUses: options that can never work', () => {
  // Every call then failed inside the wave, and the error went to the model as each tool's is_error result
  // ("Error: Cannot read properties of undefined (reading 'scope')"), not to the caller who made the slip.
  it.each([
    ['no options', undefined],
    ['no scope', {}],
    ['a numeric scope', { scope: 42 }],
  ])('%s is thrown naming scope before any tool runs', async (_, options) => {
    let ran = 0;
    const handlers = { Read: () => 'a', Count: () => String(++ran) };
    const err = await (cache().runToolUses as (...a: unknown[]) => Promise<unknown>)(uses, handlers, options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).option).toBe('scope');
    expect(ran).toBe(0);
  });
});

describe('ToolCache.runToolUses: a handler that is not a function', () => {
  // It reached the model as that tool's is_error result ("Error: run: Read: expected the tool's function …"), while
  // the caller, whose map it is, saw nothing. A tool with no handler at all still answers the model "no handler".
  it.each([
    ['a string', 'x'],
    ['null', null],
    ['an object', { run: () => 'a' }],
  ])('%s is thrown naming handlers.Read before any tool runs', async (_, read) => {
    let ran = 0;
    const handlers = { Read: read, Count: () => String(++ran) } as unknown as Record<string, ToolRunner<never>>;
    const err = await cache()
      .runToolUses(uses, handlers, { scope: '' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).option).toBe('handlers.Read');
    expect(ran).toBe(0);
  });

  it('a tool with no handler still answers the model (control)', async () => {
    const results = await cache().runToolUses(uses, { Count: () => '3' }, { scope: '' });
    expect(results[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_a', content: 'Error: no handler for tool "Read"', is_error: true });
  });
});

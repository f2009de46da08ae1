/**
 * The payload store contract, run against every store (a differential test:
 * memory and file must behave the same).
 */
import fc from 'fast-check';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { UnsafePathError } from '../../src/recall/errors.js';
import type { PayloadStore } from '../../src/recall/types.js';
import { RESULT_WITH_PARTS, SAMPLES, TEXT, TOOL_USE } from './payloads.js';

export const UNSAFE_PATHS: readonly (readonly [string, UnsafePathError['rule']])[] = [
  ['', 'empty'],
  ['../outside', 'dot_segment'],
  ['turns/1/../../../etc/passwd', 'dot_segment'],
  ['turns/./1', 'dot_segment'],
  ['..', 'dot_segment'],
  ['/etc/passwd', 'absolute'],
  ['C:/Windows/system.ini', 'absolute'],
  ['..\\..\\evil', 'backslash'],
  ['turns\\1', 'backslash'],
  ['turns/1\u0000.json', 'control_char'],
  ['turns/1/user/0\n', 'control_char'],
  ['turns//1', 'empty_segment'],
  ['turns/1/', 'empty_segment'],
  ['x'.repeat(2000), 'too_long'],
];

export function describePayloadStore(name: string, make: () => PayloadStore): void {
  describe(`${name} (payload store contract)`, () => {
    it('returns every payload byte-identical when text, parts, images, errors and tool inputs are stored', () => {
      const store = make();
      for (const [path, payload] of SAMPLES) expect(store.put(path, payload, { reason: 'prune' })).toBe('added');
      for (const [path, payload] of SAMPLES) {
        expect(JSON.stringify(store.get(path)?.payload)).toBe(JSON.stringify(payload));
      }
    });

    it('round-trips any JSON tool input byte-identically', () => {
      const store = make();
      fc.assert(
        fc.property(fc.jsonValue(), fc.string(), (input, text) => {
          const use: ContentBlockParam = { type: 'tool_use', id: 'toolu_p', name: 'Any', input };
          const result: ContentBlockParam = { type: 'tool_result', tool_use_id: 'toolu_p', content: [{ type: 'text', text }] };
          store.put('turns/1/rounds/1/calls/toolu_p', use, { reason: 'compact' });
          store.put('turns/1/rounds/1/results/toolu_p', result, { reason: 'compact' });
          expect(JSON.stringify(store.get('turns/1/rounds/1/calls/toolu_p')?.payload)).toBe(JSON.stringify(use));
          expect(JSON.stringify(store.get('turns/1/rounds/1/results/toolu_p')?.payload)).toBe(JSON.stringify(result));
        }),
        { numRuns: 60 },
      );
    });

    it('reports added, unchanged and replaced when the same path is put again', () => {
      const store = make();
      expect(store.put('turns/1/user/0', TEXT, { reason: 'agent' })).toBe('added');
      expect(store.put('turns/1/user/0', structuredClone(TEXT), { reason: 'agent' })).toBe('unchanged');
      expect(store.put('turns/1/user/0', { type: 'text', text: 'other' }, { reason: 'agent' })).toBe('replaced');
      expect(store.get('turns/1/user/0')?.payload).toEqual({ type: 'text', text: 'other' });
      expect(store.put('turns/1/user/0', { type: 'text', text: 'other' }, { reason: 'compact' })).toBe('replaced');
      expect(store.get('turns/1/user/0')?.reason).toBe('compact');
    });

    it('keeps its copy when the caller mutates the payload after put, and returns frozen payloads', () => {
      const store = make();
      const payload = structuredClone(TOOL_USE) as { input: { path: string } };
      store.put('turns/1/rounds/1/calls/toolu_03', payload as ContentBlockParam, { reason: 'prune' });
      payload.input.path = 'changed';
      const got = store.get('turns/1/rounds/1/calls/toolu_03')!;
      expect(JSON.stringify(got.payload)).toBe(JSON.stringify(TOOL_USE));
      expect(Object.isFrozen(got.payload)).toBe(true);
      expect(() => {
        (got.payload as { input: { path: string } }).input.path = 'x';
      }).toThrow(TypeError);
    });

    it('answers has/get for unknown paths with false/undefined', () => {
      const store = make();
      expect(store.has('turns/1/user/0')).toBe(false);
      expect(store.get('turns/1/user/0')).toBeUndefined();
      expect(store.get('../../etc/passwd')).toBeUndefined();
    });

    it('indexes paths by turn (from the path or the meta) and lists them in natural order', () => {
      const store = make();
      for (const [path, payload] of SAMPLES) store.put(path, payload, { reason: 'prune' });
      store.put('summaries/0', { type: 'text', text: 'summary' }, { reason: 'compact' });
      store.put('envelope/skills', { type: 'text', text: 'skills' }, { reason: 'agent', turn: 2 });
      expect(store.byTurn(2)).toEqual(['envelope/skills', 'turns/2/rounds/1/results/toolu_01AbC', 'turns/2/rounds/2/results/toolu_02']);
      expect(store.byTurn(10)).toEqual(['turns/10/rounds/1/calls/toolu_03']);
      expect(store.byTurn(3)).toEqual([]);
      expect(store.paths()).toEqual([
        'turns/1/user/0',
        'envelope/skills',
        'turns/2/rounds/1/results/toolu_01AbC',
        'turns/2/rounds/2/results/toolu_02',
        'turns/10/rounds/1/calls/toolu_03',
        'summaries/0',
      ]);
      expect(store.get('turns/2/rounds/2/results/toolu_02')).toMatchObject({ turn: 2, reason: 'prune' });
      expect(store.get('summaries/0')?.turn).toBeUndefined();
    });

    it('moves a path between turns in the index when it is re-put with another turn', () => {
      const store = make();
      store.put('envelope/skills', TEXT, { reason: 'agent', turn: 1 });
      store.put('envelope/skills', TEXT, { reason: 'agent', turn: 4 });
      expect(store.byTurn(1)).toEqual([]);
      expect(store.byTurn(4)).toEqual(['envelope/skills']);
    });

    it('finds payloads by topic, best first, with a snippet around the match', () => {
      const store = make();
      for (const [path, payload] of SAMPLES) store.put(path, payload, { reason: 'prune' });
      store.put(
        'turns/3/rounds/1/results/toolu_09',
        { type: 'tool_result', tool_use_id: 'toolu_09', content: `${'filler line\n'.repeat(40)}the backoff is exponential` },
        { reason: 'prune' },
      );
      const hits = store.search('backoff');
      // The Edit input says "backoffMs" twice; the other three once each, so they tie and go by path.
      expect(hits.map((h) => h.path)).toEqual([
        'turns/10/rounds/1/calls/toolu_03',
        'turns/1/user/0',
        'turns/2/rounds/1/results/toolu_01AbC',
        'turns/3/rounds/1/results/toolu_09',
      ]);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits.every((h) => h.snippet.toLowerCase().includes('backoff'))).toBe(true);
      // The long result's snippet is cut around the match, not the start of the file.
      const long = hits.find((h) => h.path === 'turns/3/rounds/1/results/toolu_09')!;
      expect(long.snippet.startsWith('…')).toBe(true);
      expect(long.snippet.length).toBeLessThan(200);

      // Every term matched beats one term matched; the whole phrase beats scattered words.
      const both = store.search('retry backoff config');
      expect(both[0]?.path).toBe('turns/1/user/0');
      expect(store.search('backoffMs = 500')[0]?.path).toBe('turns/10/rounds/1/calls/toolu_03');
      expect(store.search('ENOENT missing')[0]?.path).toBe('turns/2/rounds/2/results/toolu_02');
    });

    it('returns no hits when nothing matches, and respects the limit', () => {
      const store = make();
      for (const [path, payload] of SAMPLES) store.put(path, payload, { reason: 'prune' });
      expect(store.search('kubernetes')).toEqual([]);
      expect(store.search('   ')).toEqual([]);
      expect(store.search('export', { limit: 1 })).toHaveLength(1);
      expect(store.search('backoff', { limit: 0 })).toEqual([]);
    });

    it('ranks equal scores by path, so the same store always answers the same list', () => {
      const store = make();
      for (const id of ['toolu_c', 'toolu_a', 'toolu_b']) {
        store.put(`turns/1/rounds/1/results/${id}`, { type: 'tool_result', tool_use_id: id, content: 'same words here' }, { reason: 'prune' });
      }
      expect(store.search('same words').map((h) => h.path)).toEqual([
        'turns/1/rounds/1/results/toolu_a',
        'turns/1/rounds/1/results/toolu_b',
        'turns/1/rounds/1/results/toolu_c',
      ]);
    });

    it.each(UNSAFE_PATHS)('refuses the unsafe path %j with UnsafePathError (%s)', (path, rule) => {
      const store = make();
      let thrown: unknown;
      try {
        store.put(path, RESULT_WITH_PARTS, { reason: 'prune' });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(UnsafePathError);
      expect((thrown as UnsafePathError).rule).toBe(rule);
      expect((thrown as UnsafePathError).code).toBe('cache_store');
      expect(store.paths()).toEqual([]);
    });
  });
}

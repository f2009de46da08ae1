import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentMemo } from '../../src/internal/recent.js';

describe('RecentMemo', () => {
  it('answers what was set for each of the last `capacity` keys, by identity', () => {
    const memo = new RecentMemo<object, number>(3);
    const [a, b, c, d] = [{}, {}, {}, {}];
    memo.set(a, 1);
    memo.set(b, 2);
    memo.set(c, 3);
    expect([memo.get(a), memo.get(b), memo.get(c)]).toEqual([1, 2, 3]);
    // An equal but different object is another key.
    expect(memo.get({})).toBeUndefined();
    // A fourth key takes the oldest key's place.
    memo.set(d, 4);
    expect([memo.get(a), memo.get(b), memo.get(c), memo.get(d)]).toEqual([undefined, 2, 3, 4]);
  });

  it('replaces the value of a key it holds without forgetting another key', () => {
    const memo = new RecentMemo<object, string>(2);
    const [a, b] = [{}, {}];
    memo.set(a, 'a1');
    memo.set(b, 'b');
    memo.set(a, 'a2');
    expect([memo.get(a), memo.get(b)]).toEqual(['a2', 'b']);
  });

  it('behaves as a Map that keeps only the newest `capacity` distinct keys (random sequences)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer()), { maxLength: 60 }), (capacity, ops) => {
        const keys = Array.from({ length: 8 }, () => ({}));
        const memo = new RecentMemo<object, number>(capacity);
        // The model: insertion order of distinct keys, a re-set keeps its place.
        const model = new Map<object, number>();
        for (const [k, v] of ops) {
          const key = keys[k]!;
          if (!model.has(key) && model.size === capacity) model.delete(model.keys().next().value!);
          model.set(key, v);
          memo.set(key, v);
          for (const x of keys) expect(memo.get(x)).toBe(model.get(x));
        }
      }),
      { numRuns: 200 },
    );
  });
});

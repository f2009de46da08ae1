/**
 * The size in a hidden note (src/render/notes.ts): written without ICU (toLocaleString costs ~2 µs a call, and a
 * note is made for every prune candidate weighed), byte for byte as toLocaleString('en-US') writes it, so every
 * note, and the cached prefix it is part of, stays the same.
 */
import { describe, expect, it } from 'vitest';
import { groupDigits, hiddenNote } from '../../src/render/notes.js';

describe('the size in a hidden note', () => {
  it("groups digits as toLocaleString('en-US') does, for every length of count", () => {
    const counts = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 12_345_678, Number.MAX_SAFE_INTEGER];
    // Every number of digits, with random digits (fixed seed).
    let seed = 7;
    for (let digits = 1; digits <= 16; digits++) {
      for (let k = 0; k < 50; k++) {
        seed = (seed * 48271) % 2147483647;
        counts.push(Math.floor((seed / 2147483647) * 10 ** digits));
      }
    }
    for (const n of counts) expect(groupDigits(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  it('leaves anything but a non-negative safe integer to toLocaleString', () => {
    for (const n of [-1, -12_345, 1.5, 12_345.678, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY])
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  });

  it('writes the note as before', () => {
    expect(hiddenNote('turns/3/rounds/2/results/toolu_01', 'Read result', 1_234_567, 'economy')).toBe(
      '[pruned: Read result, 1,234,567 chars; recall("turns/3/rounds/2/results/toolu_01")]',
    );
  });
});

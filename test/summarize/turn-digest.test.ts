import { describe, expect, it } from 'vitest';
import { clip } from '../../src/summarize/turn-digest.js';

/** What clip means: whitespace runs collapsed to one space, trimmed, cut to `max` characters with `…`. */
function reference(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  return `${t.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** A fixed-seed generator (the same strings every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('clip', () => {
  it('equals collapsing, trimming and cutting the whole text, on strings of every kind of whitespace', () => {
    const parts = ['a', 'b', ' ', '  ', '\n', '\r\n', '\t', '\v\f', '\u00a0', '\u1680', '\u2003', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    const others = ['x y', '中', '😀', '\u200b', '\u0085', '\u180e', '\ud800', '…'];
    const next = lcg(14);
    for (let n = 0; n < 20_000; n++) {
      let s = '';
      const length = Math.floor(next() * 30);
      for (let k = 0; k < length; k++) {
        const pool = next() < 0.8 ? parts : others;
        s += pool[Math.floor(next() * pool.length)];
      }
      const max = Math.floor(next() * 25);
      expect(clip(s, max)).toBe(reference(s, max));
    }
  });

  it('treats each BMP code unit as whitespace exactly when \\s does', () => {
    const wrong: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const s = `a${String.fromCharCode(c)}b${String.fromCharCode(c)}`;
      if (clip(s, 10) !== reference(s, 10) || clip(s, 2) !== reference(s, 2)) wrong.push(c);
    }
    expect(wrong).toEqual([]);
  });

  it('clips a long text with no whitespace, and one that is only whitespace', () => {
    const word = 'x'.repeat(100_000);
    expect(clip(word, 100)).toBe(reference(word, 100));
    expect(clip(` ${word} `, 100_000)).toBe(word);
    expect(clip(' \n\t '.repeat(1_000), 5)).toBe('');
  });
});

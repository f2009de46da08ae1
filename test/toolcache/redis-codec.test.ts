/**
 * The Redis store's entry encoding: format 2 (text content raw after a JSON
 * metadata line) for text results, format 1 (one JSON text) for content parts;
 * both decode, and anything else is a miss, never a served value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredEntry } from '../../src/toolcache/store.js';
import { decodeEntry, encodeEntry } from '../../src/toolcache/stores/redis-codec.js';

const base = {
  key: 'Read:s:abc',
  tool: 'Read',
  scope: 's',
  durationMs: 12,
  insertedTurn: 3,
  insertedAtMs: 1_700_000_000_000,
  ttlTurns: 5,
  session: 'x',
  tags: ['file:a.ts'],
} as const;

describe('redis codec', () => {
  it('stores text content raw after the metadata line and reads it back exactly, newlines, quotes and all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (content) => {
        const entry: StoredEntry = { ...base, content };
        const raw = encodeEntry(entry);
        expect(raw.endsWith(`\n${content}`)).toBe(true);
        expect(JSON.parse(raw.slice(0, raw.indexOf('\n')))).toEqual({ v: 2, e: base });
        expect(decodeEntry(raw, base.key)).toEqual(entry);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps content parts in format 1 and still reads format-1 text entries (values written before format 2)', () => {
    const parts: StoredEntry = { ...base, content: [{ type: 'text', text: 'a\nb' }] };
    const raw = encodeEntry(parts);
    expect(raw.includes('\n')).toBe(false);
    expect(decodeEntry(raw, base.key)).toEqual(parts);
    const v1 = JSON.stringify({ v: 1, e: { ...base, content: 'old\ntext' } });
    expect(decodeEntry(v1, base.key)).toEqual({ ...base, content: 'old\ntext' });
    expect(Object.isFrozen(decodeEntry(v1, base.key))).toBe(true);
    expect(Object.isFrozen(decodeEntry(encodeEntry({ ...base, content: 't' }), base.key))).toBe(true);
  });

  it('answers undefined for anything else: another key, an unknown format, metadata that carries content, corrupt metadata', () => {
    const raw = encodeEntry({ ...base, content: 'text' });
    expect(decodeEntry(raw, 'Read:s:other')).toBeUndefined();
    expect(decodeEntry(raw.replace('"v":2', '"v":3'), base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 2, e: { ...base, content: 'x' } })}\ny`, base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 1, e: base })}\ntext`, base.key)).toBeUndefined();
    expect(decodeEntry(`{"v":2,"e":{nope\ntext`, base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 2, e: { ...base, durationMs: 'slow' } })}\ntext`, base.key)).toBeUndefined();
  });
});

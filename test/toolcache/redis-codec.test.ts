/**
 * The Redis store's entry encoding: format 4 (text content raw after a JSON
 * metadata line) for text results, format 3 (one JSON text) for content parts, each with the epoch the entry was
 * inserted at; both decode, formats 1 and 2 (no epoch) decode as inserted at no known epoch, and anything else is
 * a miss, never a served value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredEntry } from '../../src/toolcache/store.js';
import { decodeEntry, decodeStored, encodeEntry, NO_EPOCH } from '../../src/toolcache/stores/redis-codec.js';

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
        const raw = encodeEntry(entry, 1_733_000_000_000_001);
        expect(raw.endsWith(`\n${content}`)).toBe(true);
        expect(JSON.parse(raw.slice(0, raw.indexOf('\n')))).toEqual({ v: 4, g: 1_733_000_000_000_001, e: base });
        expect(decodeStored(raw, base.key)).toEqual({ entry, epoch: 1_733_000_000_000_001 });
      }),
      { numRuns: 500 },
    );
  });

  it('keeps content parts in format 3; reads formats 1 and 2 (values written before the epoch was kept) as inserted at no epoch', () => {
    const parts: StoredEntry = { ...base, content: [{ type: 'text', text: 'a\nb' }] };
    const raw = encodeEntry(parts, 7);
    expect(raw.startsWith('{"v":3,"g":7,')).toBe(true); // where the scripts read the epoch (redis-scripts.ts live)
    expect(raw.includes('\n')).toBe(false);
    expect(decodeStored(raw, base.key)).toEqual({ entry: parts, epoch: 7 });
    const v1 = JSON.stringify({ v: 1, e: { ...base, content: 'old\ntext' } });
    expect(decodeStored(v1, base.key)).toEqual({ entry: { ...base, content: 'old\ntext' }, epoch: NO_EPOCH });
    const v2 = `${JSON.stringify({ v: 2, e: base })}\nold`;
    expect(decodeStored(v2, base.key)).toEqual({ entry: { ...base, content: 'old' }, epoch: NO_EPOCH });
    expect(Object.isFrozen(decodeEntry(v1, base.key))).toBe(true);
    expect(Object.isFrozen(decodeEntry(encodeEntry({ ...base, content: 't' }, 7), base.key))).toBe(true);
  });

  it('answers undefined for anything else: another key, an unknown format, metadata that carries content, corrupt metadata', () => {
    const raw = encodeEntry({ ...base, content: 'text' }, 7);
    expect(decodeEntry(raw, 'Read:s:other')).toBeUndefined();
    expect(decodeEntry(raw.replace('"v":4', '"v":5'), base.key)).toBeUndefined();
    expect(decodeEntry(raw.replace('"g":7', '"g":"7"'), base.key)).toBeUndefined();
    expect(decodeEntry(raw.replace('"g":7,', ''), base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 2, e: { ...base, content: 'x' } })}\ny`, base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 1, e: base })}\ntext`, base.key)).toBeUndefined();
    expect(decodeEntry(`{"v":2,"e":{nope\ntext`, base.key)).toBeUndefined();
    expect(decodeEntry(`${JSON.stringify({ v: 2, e: { ...base, durationMs: 'slow' } })}\ntext`, base.key)).toBeUndefined();
  });
});

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64url, randomId, sha1Bytes, sha256Hex } from '../../src/internal/hash.js';

describe('plain-JavaScript digests (the core has no node:crypto)', () => {
  const edges = ['', 'a', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(63), 'x'.repeat(64), 'y'.repeat(1000), 'héllo 数据 😀', 'a\uD800b'];

  it('SHA-256 and SHA-1 give node:crypto’s digests (block edges, UTF-8, lone surrogates)', () => {
    for (const s of edges) {
      expect(sha256Hex(s)).toBe(createHash('sha256').update(s).digest('hex'));
      expect(base64url(sha1Bytes(s))).toBe(createHash('sha1').update(s).digest('base64url'));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => {
        expect(sha256Hex(s)).toBe(createHash('sha256').update(s).digest('hex'));
        expect(base64url(sha1Bytes(s))).toBe(createHash('sha1').update(s).digest('base64url'));
      }),
      { numRuns: 200 },
    );
  });

  it('random ids are UUID v4', () => {
    expect(randomId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

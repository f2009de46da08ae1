import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalKeyError, hashArgs, MAX_KEY_DEPTH, MAX_KEY_TEXT, toolCacheKey, toolOfKey } from '../../src/toolcache/key.js';

function rejection(value: unknown): CanonicalKeyError {
  try {
    canonicalJson(value);
  } catch (e) {
    if (e instanceof CanonicalKeyError) return e;
    throw e;
  }
  throw new Error('expected a CanonicalKeyError');
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('gives two spellings of one call the same text (key order, JSON whitespace)', () => {
    const a = JSON.parse('{ "path": "src/main.ts", "range": { "end": 20, "start": 1 } }');
    const b = JSON.parse('{"range":{"start":1,"end":20},"path":"src/main.ts"}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('omits a property whose value is undefined, so {a: undefined} equals {}', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson({ a: undefined })).toBe(canonicalJson({}));
  });

  it('rejects undefined at the top level, as an array element and as an array hole', () => {
    expect(rejection(undefined).path).toBe('$');
    expect(rejection({ list: [1, undefined] }).path).toBe('$.list[1]');
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(rejection({ list: [1, , 3] }).path).toBe('$.list[1]');
  });

  it('writes -0 as 0', () => {
    expect(canonicalJson({ x: -0 })).toBe('{"x":0}');
    expect(canonicalJson([-0])).toBe(canonicalJson([0]));
  });

  it('rejects NaN and ±Infinity, naming the JSON path', () => {
    expect(rejection({ a: { b: [0, Number.NaN] } }).message).toMatchInlineSnapshot(`"$.a.b[1]: NaN has no JSON form; pass null or a string instead"`);
    expect(rejection({ x: Number.POSITIVE_INFINITY }).path).toBe('$.x');
    expect(rejection({ x: Number.NEGATIVE_INFINITY }).path).toBe('$.x');
  });

  it('writes numbers in the shortest round-trip form', () => {
    expect(canonicalJson([1.5, 1e21, 1e-7, 100, 0.1 + 0.2])).toBe('[1.5,1e+21,1e-7,100,0.30000000000000004]');
  });

  it('writes a bigint as its exact decimal digits, equal to the same integer as a number', () => {
    expect(canonicalJson({ id: 12345678901234567890123n })).toBe('{"id":12345678901234567890123}');
    expect(canonicalJson({ n: 42n })).toBe(canonicalJson({ n: 42 }));
    expect(canonicalJson(-7n)).toBe('-7');
  });

  it('writes a valid Date as its ISO string and rejects an invalid one', () => {
    expect(canonicalJson({ at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)) })).toBe('{"at":"2024-01-02T03:04:05.006Z"}');
    expect(canonicalJson(new Date(0))).toBe(canonicalJson('1970-01-01T00:00:00.000Z'));
    expect(rejection({ at: new Date('nope') }).message).toBe('$.at: invalid Date');
  });

  it('rejects non-plain objects, functions, symbols and symbol keys, naming the path and the type', () => {
    expect(rejection({ m: new Map() }).message).toMatchInlineSnapshot(
      `"$.m: Map is not a plain object; convert it to plain JSON (objects, arrays, strings, numbers, booleans, null) first"`,
    );
    expect(rejection({ s: new Set([1]) }).path).toBe('$.s');
    expect(rejection({ r: /x/ }).path).toBe('$.r');
    expect(rejection({ b: new Uint8Array(2) }).path).toBe('$.b');
    expect(rejection({ n: Object(1) }).path).toBe('$.n');
    class Point {
      x = 1;
    }
    expect(rejection([new Point()]).message).toContain('$[0]: Point is not a plain object');
    expect(rejection({ f: () => 1 }).message).toBe('$.f: a function has no JSON form');
    expect(rejection({ s: Symbol('x') }).message).toBe('$.s: a symbol has no JSON form');
    expect(rejection({ [Symbol('k')]: 1 }).path).toBe('$');
  });

  it('accepts null-prototype objects as plain', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.b = 2;
    o.a = 1;
    expect(canonicalJson(o)).toBe('{"a":1,"b":2}');
  });

  it('rejects cycles but accepts a shared (acyclic) reference', () => {
    const shared = { v: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"v":1},"b":{"v":1}}');
    const cyc: Record<string, unknown> = { a: {} };
    (cyc.a as Record<string, unknown>).back = cyc;
    expect(rejection(cyc).message).toBe('$.a.back: circular reference');
  });

  it('writes a value shared 2^40 times in linear time (each distinct object once), and refuses one whose text would pass MAX_KEY_TEXT', () => {
    // Each level doubles the text: 2^12 leaves is 86 KB of JSON, written from 12 distinct objects.
    let small: unknown = 'leaf';
    for (let i = 0; i < 12; i++) small = { a: small, b: small };
    expect(canonicalJson(small)).toBe(JSON.stringify(small));
    // 2^40 uses of one leaf: without the per-object text this never finishes (2^21 took 1.25 s, 2^26 ran out of memory).
    let huge: unknown = 'leaf';
    for (let i = 0; i < 40; i++) huge = { a: huge, b: huge };
    const e = rejection(huge);
    expect(e.message).toContain(`exceeds ${MAX_KEY_TEXT.toLocaleString('en-US')} characters`);
    expect(() => hashArgs(huge, 'Read')).toThrow(CanonicalKeyError);
  });

  it('refuses arguments nested deeper than MAX_KEY_DEPTH with a CanonicalKeyError, not a RangeError, naming both ends of the path', () => {
    let ok: unknown = 1;
    for (let i = 0; i < MAX_KEY_DEPTH; i++) ok = [ok];
    expect(canonicalJson(ok)).toBe(`${'['.repeat(MAX_KEY_DEPTH)}1${']'.repeat(MAX_KEY_DEPTH)}`);
    for (const depth of [MAX_KEY_DEPTH + 1, 5000, 100_000]) {
      let deep: unknown = 1;
      for (let i = 0; i < depth; i++) deep = { a: deep };
      let caught: unknown;
      try {
        toolCacheKey('Read', deep, 's');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(CanonicalKeyError);
      const err = caught as CanonicalKeyError;
      expect(err.message).toContain(`nested more than ${MAX_KEY_DEPTH} levels deep`);
      expect(err.path).toMatch(/^\$\.a\.a.*…\(\d+ levels\)….*\.a$/);
      expect(err.message.length).toBeLessThan(400);
    }
  });

  it('quotes keys that are not identifiers in the error path', () => {
    expect(rejection({ 'a b': { 'c.d': Number.NaN } }).path).toBe('$["a b"]["c.d"]');
  });

  it('round-trips every plain JSON value, and is idempotent; keys in code-unit order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
    // Key order is code-unit order even for integer-like keys (which JS objects enumerate first).
    expect(canonicalJson({ b: 1, '10': 2, '9': 3, '': 4 })).toBe('{"":4,"10":2,"9":3,"b":1}');
  });

  it('is independent of key insertion order for every object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (o) => {
        const reversed = Object.fromEntries(Object.entries(o).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(o));
      }),
      { numRuns: 200 },
    );
  });
});

describe('toolCacheKey', () => {
  it('hits for two spellings of one call and differs for different arguments', () => {
    expect(toolCacheKey('Read', { path: 'a', limit: 10 }, 's')).toBe(toolCacheKey('Read', { limit: 10, path: 'a' }, 's'));
    expect(toolCacheKey('Read', { path: 'a' }, 's')).not.toBe(toolCacheKey('Read', { path: 'b' }, 's'));
    expect(toolCacheKey('Read', { path: 'a' }, 's')).not.toBe(toolCacheKey('Grep', { path: 'a' }, 's'));
  });

  it('never shares a key between scopes, whatever characters tool and scope contain', () => {
    expect(toolCacheKey('Read', {}, 'tenant-1')).not.toBe(toolCacheKey('Read', {}, 'tenant-2'));
    // Without escaping, ("a:b", "c") and ("a", "b:c") would produce the same prefix.
    expect(toolCacheKey('a:b', {}, 'c')).not.toBe(toolCacheKey('a', {}, 'b:c'));
    expect(toolCacheKey('a%3Ab', {}, 'c')).not.toBe(toolCacheKey('a:b', {}, 'c'));
  });

  it('is tool:scope:sha256 and the tool can be read back', () => {
    const key = toolCacheKey('mcp:fs/read', { x: 1 }, 'u:1');
    expect(key).toMatch(/^mcp%3Afs%2Fread:u%3A1:[0-9a-f]{64}$/);
    expect(toolOfKey(key)).toBe('mcp:fs/read');
    expect(key.endsWith(hashArgs({ x: 1 }))).toBe(true);
  });

  it('names the tool and the JSON path when arguments cannot be canonical', () => {
    expect(() => toolCacheKey('Read', { opts: { since: new Date(Number.NaN) } }, 's')).toThrowErrorMatchingInlineSnapshot(
      `[CanonicalKeyError: Read arguments: $.opts.since: invalid Date]`,
    );
    try {
      toolCacheKey('Read', { x: 1n, y: new Map() }, 's');
    } catch (e) {
      expect(e).toBeInstanceOf(CanonicalKeyError);
      expect((e as CanonicalKeyError).code).toBe('canonical_key');
      expect((e as CanonicalKeyError).tool).toBe('Read');
      expect((e as CanonicalKeyError).path).toBe('$.y');
    }
  });
});

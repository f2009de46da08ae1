import fc from 'fast-check';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it, vi } from 'vitest';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import {
  MODEL_CLASSES,
  MODEL_EXTRA,
  cl100kCount,
  cl100kEstimate,
  cl100kPieces,
  lastEstimateWindows,
  modelFeatures,
  modelTokens,
  utf8Binary,
} from '../../src/tokens/bpe.js';
import { BlockTokenCache, HUGE_TEXT, tiktokenCounter } from '../../src/tokens/counter.js';
import { PAYLOAD_KINDS, type PayloadKind, payload } from '../../src/synthetic/payloads.js';

const reference = getEncoding('cl100k_base');
const exact = (text: string): number => reference.encode(text, [], []).length;
/** The pieces cl100k's own pattern splits a text into (what js-tiktoken merges). */
const pattern = new RegExp(cl100k.pat_str, 'gu');
const regexPieces = (text: string): string[] => text.match(pattern) ?? [];

describe('cl100kCount (the counting-only BPE)', () => {
  it('counts exactly what js-tiktoken counts, on every payload kind', () => {
    for (const kind of PAYLOAD_KINDS) {
      for (const size of [1, 37, 500, 3000]) {
        const text = payload(kind, size, 11);
        expect(cl100kPieces(text), `${kind} ${size}`).toEqual(regexPieces(text));
        expect(cl100kCount(text), `${kind} ${size}`).toBe(exact(text));
      }
    }
  });

  it('counts edge cases like js-tiktoken: special-token text, lone surrogates, emoji, whitespace runs, one long CJK piece', () => {
    const cases = [
      '',
      '<|endoftext|> and <|fim_prefix|>',
      'a\uD800b \uDC00',
      '👩‍👩‍👧 emoji 🎉🎉',
      '   \n\n\t  x  \r\n',
      "it's I'LL they'd",
      '数据'.repeat(150),
      'x'.repeat(3000),
      '0123456789'.repeat(30),
    ];
    for (const text of cases) expect(cl100kCount(text), JSON.stringify(text.slice(0, 20))).toBe(exact(text));
  });

  it('counts what js-tiktoken counts on random mixes of every character class (fixed seed)', () => {
    // The count walks the pre-tokenizer's pieces end to end (each starts where the previous ended):
    // mixes of letters, numbers, contractions, whitespace kinds, punctuation, CJK, emoji, combining
    // marks and lone surrogates check that the pieces tile the text as the pattern splits it.
    const atoms = [
      'a',
      'Z',
      'word',
      ' the',
      "'s",
      "'LL",
      "'d",
      '7',
      '12345',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      '\n\n ',
      '\u00a0',
      '\u2003',
      '\u3000',
      '.',
      ',',
      '!?',
      '->',
      '{"k":',
      '}',
      '/',
      '+',
      '=',
      '_',
      '数据',
      '。',
      'ｔｅｓｔ',
      '😀',
      '👩‍👩‍👧',
      'é',
      'e\u0301',
      '\u0661\u0662',
      '\uD800',
      '\uDC00',
      'Ω',
      // The hand-written pre-tokenizer's corners: every contraction case, an apostrophe before letters or
      // digits, \v \f, a lone \r, U+2028 (whitespace that is not [\r\n]), letters and digits outside the
      // BMP, an emoji before letters, digit runs longer than 3, Devanagari with its marks, Arabic, Hangul.
      "'S",
      "'t",
      "'Re",
      "'rE",
      "'VE",
      "'lL",
      "'M",
      "'D",
      "'x",
      "'9",
      "''",
      '\v',
      '\f',
      '\r',
      '\u2028',
      '\u200b',
      '\ufeff',
      '𝐀𝐁',
      '𝟘𝟙𝟚𝟛',
      '😀x',
      '1234567',
      'हिन्दी',
      'مرحبا',
      '한국어',
      ' ',
      '\t ',
      ' .',
      '...',
    ];
    for (const seed0 of [20_261_130, 7, 99]) {
      let seed = seed0;
      const rand = (n: number): number => {
        seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
        return (seed >>> 8) % n;
      };
      for (let k = 0; k < 400; k++) {
        let text = '';
        const parts = 1 + rand(60);
        for (let i = 0; i < parts; i++) text += atoms[rand(atoms.length)]!;
        expect(cl100kPieces(text), JSON.stringify(text)).toEqual(regexPieces(text));
        expect(cl100kCount(text), JSON.stringify(text)).toBe(exact(text));
      }
    }
  });

  it('counts line-structured texts like js-tiktoken, chunk by chunk, whatever the chunk memo holds (fixed seed)', () => {
    // Texts of 64 code units or more are counted in chunks cut after a line break (when spaces/tabs and then
    // neither whitespace nor a character outside ASCII follow) and before a tab after a digit, each chunk's
    // count memoized. Lines of every kind meet here: indentation of every whitespace kind (U+00A0, U+3000 and
    // U+2028 after a line break do not cut), blank and whitespace-only lines, \r\n, numbered lines (1–7
    // digits, an Arabic-Indic digit before the tab), punctuation that takes the line break, trailing
    // whitespace at the end. Each text is counted cold, again (memo hits), and its lines shuffled into
    // another text (the same chunks after other ones).
    const heads = [
      '',
      '',
      '  ',
      '    ',
      '\t',
      '\t\t',
      ' \t ',
      '\v',
      '\f ',
      '\u00a0',
      '\u3000',
      '\u2028',
      '  \u00a0',
      '     1\t',
      '    42\t',
      '  1234\t',
      '1234567\t',
      '\u0661\t',
      '12 \t',
    ];
    const bodies = [
      'const x = 1;',
      'return foo(bar, baz);',
      '}',
      '',
      ' ',
      '  ',
      '// comment: the batch may be closed',
      "it's done",
      '{"key": [1, 2, 3]},',
      '数据 数据',
      'é\u0301',
      '😀 ok',
      '...',
      '\t',
      '12345678901',
      'INFO worker started id=ab12',
      '\u2028x',
    ];
    const ends = ['\n', '\n', '\n', '\r\n', '\n\n', '\n \n', ';\n', '\n\t\n', ' \n', '\n\u00a0'];
    let seed = 20_261_201;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let k = 0; k < 300; k++) {
      const lines: string[] = [];
      const count = 2 + rand(40);
      for (let i = 0; i < count; i++)
        lines.push(heads[rand(heads.length)]! + bodies[rand(bodies.length)]! + bodies[rand(bodies.length)]! + ends[rand(ends.length)]!);
      const tails = ['', '', '  ', '\n', '\t', 'x'];
      const text = lines.join('') + tails[rand(tails.length)]!;
      const want = exact(text);
      expect(cl100kCount(text), JSON.stringify(text)).toBe(want);
      expect(cl100kCount(text), JSON.stringify(text)).toBe(want);
      const shuffled = lines.map((l, i) => lines[(i * 7 + 3) % lines.length]! + (i % 3 === 0 ? l : '')).join('');
      expect(cl100kCount(shuffled), JSON.stringify(shuffled)).toBe(exact(shuffled));
    }
  });

  it('counts every BMP code unit around the chunk cuts like js-tiktoken', () => {
    // Each code unit c after a line break (then a letter, a line break), after indentation, before and after a
    // numbered line's tab.
    for (let from = 0; from < 65536; from += 256) {
      let text = '';
      for (let c = from; c < from + 256; c++) {
        const u = String.fromCharCode(c);
        text += `x;\n${u}a\n  ${u}\n 7\t${u} 9${u}\t\n${u}\n\t${u}\r\n`;
      }
      expect(cl100kCount(text), `code units ${from}–${from + 255}`).toBe(exact(text));
      expect(cl100kCount(text), `code units ${from}–${from + 255}, again`).toBe(exact(text));
    }
    // ~20 s alone; a loaded machine (2 cores, other suites) took it past the 60 s default.
  }, 180_000);

  it('counts the same after the chunk memo is emptied (it fills up)', () => {
    const text = payload('code', 20_000, 3);
    const want = exact(text);
    expect(cl100kCount(text)).toBe(want);
    // More distinct lines than the memo holds (2^21 code units): it is emptied on the way.
    let flood = '';
    for (let i = 0; i < 140_000; i++) flood += `  value_${i} = compute(${i});\n`;
    cl100kCount(flood);
    expect(cl100kCount(text)).toBe(want);
    expect(cl100kCount(text)).toBe(want);
  });

  it('counts texts of short chunks (numbers of numbered lines, short lines) like js-tiktoken, cold and from the cache', () => {
    // Chunks of up to 8 code units are looked up whole in a direct-mapped cache keyed by their packed units: lines
    // of 1-8 characters from a small alphabet (so they come back and collide), the numbers of numbered lines of
    // 1-7 digits in widths 1-8, and short lines outside ASCII (not cached), each text counted twice and reversed.
    const r = lcg(77);
    const alphabet = ' \t0123456789aZ}{;)(x_-.\'"é\u00a0字';
    for (let k = 0; k < 40; k++) {
      const lines: string[] = [];
      for (let i = 0; i < 200; i++) {
        if (r(2) === 0) {
          let line = '';
          for (let n = 1 + r(8); n > 0; n--) line += alphabet[r(alphabet.length)];
          lines.push(line);
        } else {
          const number = String(1 + r(10 ** (1 + r(7))));
          lines.push(`${number.padStart(Math.max(number.length, 1 + r(8)))}\t${'x'.repeat(r(3))}`);
        }
      }
      const text = lines.join('\n');
      const want = exact(text);
      expect(cl100kCount(text), `text ${k}`).toBe(want);
      expect(cl100kCount(text), `text ${k} again`).toBe(want);
      const reversed = lines.reverse().join('\n');
      expect(cl100kCount(reversed), `text ${k} reversed`).toBe(exact(reversed));
    }
  });

  it('counts line-heavy payloads of 20k characters like js-tiktoken', () => {
    for (const kind of ['code', 'json', 'log', 'prose', 'log+json', 'code+base64'] as PayloadKind[])
      for (const seed of [1, 2]) {
        const text = payload(kind, 20_000, seed);
        expect(cl100kCount(text), `${kind} seed ${seed}`).toBe(exact(text));
      }
    const numbered = OTHER_KINDS['code, numbered lines']!(20_000, 1);
    expect(cl100kCount(numbered)).toBe(exact(numbered));
    expect(cl100kCount(numbered.split('\n').reverse().join('\n'))).toBe(exact(numbered.split('\n').reverse().join('\n')));
  });

  it('splits and counts like js-tiktoken on arbitrary strings (fast-check, fixed seed)', () => {
    // Any code point (unassigned ones, marks, lone surrogates included) and short runs from a pool of
    // characters of every class, so that classes meet each other in every order.
    const pool = fc.constantFrom(
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\t',
      "'",
      "'s",
      "'LL",
      'a',
      'Zz',
      '9',
      '123',
      '.',
      '!!',
      '数',
      'é',
      '😀',
      '\u00a0',
      '\u3000',
      '\uD800',
      '\u0301',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.array(pool, { maxLength: 40 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(cl100kPieces(t)).toEqual(regexPieces(t));
        expect(cl100kCount(t)).toBe(exact(t));
      }),
      { seed: 14, numRuns: 1_000 },
    );
  });

  it('counts long pieces (merged with a heap) like js-tiktoken: CJK runs, base64-like letter runs, one repeated letter', () => {
    let seed = 11;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return (seed >>> 8) % n;
    };
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (let k = 0; k < 12; k++) {
      const n = 10 + rand(300);
      let cjk = '';
      let run = '';
      for (let i = 0; i < n; i++) {
        cjk += String.fromCharCode(0x4e00 + rand(k < 6 ? 300 : 20_000));
        run += letters[rand(letters.length)];
      }
      expect(cl100kCount(cjk), cjk.slice(0, 20)).toBe(exact(cjk));
      expect(cl100kCount(run), run.slice(0, 20)).toBe(exact(run));
    }
    for (const text of ['a'.repeat(1000), 'ab'.repeat(700), ' '.repeat(500), '\n'.repeat(300), '='.repeat(400)]) {
      expect(cl100kCount(text), JSON.stringify(text.slice(0, 10))).toBe(exact(text));
    }
  });

  it('counts short ASCII pieces apart that differ in one bit of one character (the packed cache key is exact)', () => {
    // Pieces of up to 8 ASCII characters are cached under their characters packed into two integers: a
    // collision would serve one piece's count for another, depending on which was counted first.
    for (const base of ['internal', ' counter', 'abcdefgh', 'Hello', 'xy', '12ab']) {
      const texts = [base];
      for (let p = 0; p < base.length; p++) {
        for (let bit = 0; bit < 7; bit++) texts.push(base.slice(0, p) + String.fromCharCode(base.charCodeAt(p) ^ (1 << bit)) + base.slice(p + 1));
      }
      for (const text of [...texts, ...texts.reverse()]) expect(cl100kCount(text), JSON.stringify(text)).toBe(exact(text));
    }
  });

  it('encodes UTF-8 like TextEncoder (lone surrogates as U+FFFD)', () => {
    for (const s of ['héllo', '数据', '😀', 'a\uD800', '\uDC00z']) {
      const bytes = new TextEncoder().encode(s);
      expect(utf8Binary(s)).toBe(String.fromCharCode(...bytes));
    }
  });
});

/** Kinds whose character classes the payloads lack (tab-indented code, Cyrillic prose, prose with emoji …) and mixes as tools return them. */
const CYRILLIC = 'абвгдежзийклмнопрстуфхцчшщыэюя';
const OTHER_KINDS: Record<string, (size: number, seed: number) => string> = {
  'code, tabs': (size, seed) => payload('code', size, seed).replace(/ {2}/g, '\t'),
  'code, numbered lines': (size, seed) => numberLines(payload('code', size, seed), size),
  'prose, Cyrillic': (size, seed) => payload('prose', size, seed).replace(/[a-z]/g, (c) => CYRILLIC[(c.charCodeAt(0) * 7) % CYRILLIC.length]!),
  'prose, emoji': (size, seed) => payload('prose', size, seed).replace(/\. /g, (_, i: number) => ['. 😀 ', '. 🚀 ', '. ✅ ', '. '][i % 4]!),
  // Characters of every frequency (common ones one token, rare ones two or three), clauses of 3–22.
  'CJK, wide vocabulary': (size, seed) => {
    const r = lcg(seed);
    let t = '';
    while (t.length < size) {
      const n = 3 + r(20);
      for (let i = 0; i < n; i++) t += String.fromCharCode(0x4e00 + (r(4) === 0 ? r(20_000) : r(1_500)));
      t += '，。、：'[r(4)]!;
      if (r(8) === 0) t += '\n';
    }
    return t.slice(0, size);
  },
  'Hangul words': (size, seed) => {
    const r = lcg(seed);
    let t = '';
    while (t.length < size) {
      const n = 1 + r(5);
      for (let i = 0; i < n; i++) t += String.fromCharCode(0xac00 + r(11_172));
      t += r(10) === 0 ? '. ' : ' ';
    }
    return t.slice(0, size);
  },
  // Mixes as a read tool shows them: a numbered file with an inline image (code, then base64 lines), a numbered log.
  'code, numbered lines, base64 tail': (size, seed) => numberLines(payload('code+base64', size, seed), size),
  'log, numbered lines': (size, seed) => numberLines(payload('log', size, seed), size),
  // Pretty-printed JSON records, each with a base64 value of 40-400 characters (attachments, thumbnails).
  'JSON with base64 values': (size, seed) => {
    const r = lcg(seed);
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let t = '[\n';
    for (let id = 1; t.length < size; id++) {
      let blob = '';
      for (let n = 40 + r(360); n > 0; n--) blob += b64[r(64)];
      t += `  {\n    "id": ${id},\n    "name": "attachment-${r(100_000)}.png",\n    "data": "${blob}"\n  },\n`;
    }
    return t.slice(0, size);
  },
  // Not random base64: an encoded JSON document (its letters repeat with the document's structure).
  'base64 of JSON': (size, seed) =>
    Buffer.from(payload('json', Math.ceil(size * 0.75), seed))
      .toString('base64')
      .slice(0, size),
};

/** `text` as an agent's read tool shows a file (each line after its number, right-aligned in 6, and a tab), cut to `size`. */
function numberLines(text: string, size: number): string {
  return text
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
    .join('\n')
    .slice(0, size);
}

/** A seeded generator of integers in [0, n). */
function lcg(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return (s >>> 8) % n;
  };
}

describe('cl100kEstimate (sampled count of long payloads)', () => {
  // Deterministic (fixed seeds, a deterministic estimator): the margin to the ±2 % target is the test's, not luck's.
  // The worst of these 270 cases was 2.06 % for the previous estimator (log+json, 250k, seed 6), 1.06 % with unshifted
  // windows (which aliased on fixed-width records: test below), 1.21 % with 64 first windows and the class model
  // (json, 250k, seed 4), and is 1.18 % with 16 first windows and the token features (base64, 13k, seed 1 in a
  // sweep that adds 13k and 30k; 1.07 % here).
  it.each(PAYLOAD_KINDS)(
    'is within ±1.5 % of the exact count on %s at 5k–250k characters, seeds 1–6',
    (kind: PayloadKind) => {
      for (const size of [5_000, 9_000, 20_000, 60_000, 250_000]) {
        for (const seed of [1, 2, 3, 4, 5, 6]) {
          const text = payload(kind, size, seed);
          const want = cl100kCount(text);
          const got = cl100kEstimate(text);
          expect(Math.abs(got / want - 1), `${kind} ${size} seed ${seed}: ${got} vs ${want}`).toBeLessThanOrEqual(0.015);
        }
      }
    },
    120_000,
  );

  it.each(Object.keys(OTHER_KINDS))(
    'is within ±1.5 % of the exact count on %s at 5k–250k characters (kinds the model was barely or not fit on)',
    (kind) => {
      for (const size of [5_000, 9_000, 20_000, 60_000, 250_000]) {
        for (const seed of [1, 2, 3]) {
          const text = OTHER_KINDS[kind]!(size, seed);
          const want = cl100kCount(text);
          const got = cl100kEstimate(text);
          expect(Math.abs(got / want - 1), `${kind} ${size} seed ${seed}: ${got} vs ${want}`).toBeLessThanOrEqual(0.015);
        }
      }
    },
    120_000,
  );

  it("takes its linear model over the text's own previous character, so a text's model is the sum of its parts' models", () => {
    // The estimate subtracts the windows' model from the whole text's: a model that is not additive (one that
    // restarted at a window's start) would bias every estimate by the windows' share of the difference.
    let seed = 5;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (const text of [payload('code+base64', 20_000, 1), payload('markdown+cjk', 20_000, 2), OTHER_KINDS['prose, emoji']!(20_000, 3)]) {
      const cuts = [0, ...Array.from({ length: 50 }, () => rand(text.length)), text.length].sort((a, b) => a - b);
      let sum = 0;
      for (let i = 1; i < cuts.length; i++) sum += modelTokens(text, cuts[i - 1]!, cuts[i]!);
      expect(sum).toBeCloseTo(modelTokens(text, 0, text.length), 6);
    }
  });

  it("takes the model's token features over the text's own previous units too: a text's features are the sum of its parts'", () => {
    // Every feature of a unit reads the units before it from the text (not from the part), so cutting a text
    // anywhere (inside a surrogate pair, between the units of a multi-unit token) changes no feature.
    let seed = 11;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return (seed >>> 8) % n;
    };
    const size = MODEL_CLASSES * MODEL_CLASSES + MODEL_EXTRA;
    for (const text of [
      payload('base64', 5_000, 1),
      payload('markdown+cjk', 5_000, 2),
      OTHER_KINDS['prose, emoji']!(5_000, 3),
      OTHER_KINDS['Hangul words']!(5_000, 4),
    ]) {
      const whole = new Float64Array(size);
      modelFeatures(text, 0, text.length, whole);
      const parts = new Float64Array(size);
      const cuts = [0, ...Array.from({ length: 40 }, () => rand(text.length)), text.length].sort((a, b) => a - b);
      for (let i = 1; i < cuts.length; i++) modelFeatures(text, cuts[i - 1]!, cuts[i]!, parts);
      expect([...parts]).toEqual([...whole]);
      // The token features do occur (the test would be empty otherwise).
      expect(whole.slice(MODEL_CLASSES * MODEL_CLASSES).some((v) => v > 0)).toBe(true);
    }
  });

  it('gives the same estimates whatever was counted before it (fresh module instances, opposite orders)', async () => {
    // Counts drive byte decisions, so an estimate must be a function of its text alone: the model's tables (the
    // tokens of each code unit alone are found on first sight) and the memos must not change it.
    const texts = [
      payload('cjk', 9_000, 21),
      OTHER_KINDS['CJK, wide vocabulary']!(20_000, 22),
      payload('code+base64', 30_000, 23),
      OTHER_KINDS['Hangul words']!(9_000, 24),
      payload('log', 60_000, 25),
    ];
    vi.resetModules();
    const first = await import('../../src/tokens/bpe.js');
    const forward = texts.map((t) => first.cl100kEstimate(t));
    vi.resetModules();
    const second = await import('../../src/tokens/bpe.js');
    second.cl100kCount(OTHER_KINDS['CJK, wide vocabulary']!(30_000, 99));
    const backward = [...texts]
      .reverse()
      .map((t) => second.cl100kEstimate(t))
      .reverse();
    expect(second).not.toBe(first);
    expect(backward).toEqual(forward);
    expect(forward).toEqual(texts.map((t) => cl100kEstimate(t)));
  });

  it('gives the same estimates in a long-lived module instance whose memos and caches have been filled and emptied', async () => {
    // Two fresh instances; one first counts and estimates 1.5M characters of random mixes (astral letters past the
    // 4,096 remembered classes, lone surrogates, CJK, Cyrillic, control characters: the piece memo, the pair memo
    // and the small caches fill and are emptied). Checked in review4: no estimate moved.
    const junk = (length: number, seed: number): string => {
      const r = lcg(seed);
      let t = '';
      while (t.length < length) {
        const m = r(10);
        if (m < 3) t += String.fromCharCode(97 + r(26));
        else if (m < 5) t += String.fromCharCode(0x4e00 + r(20_000));
        else if (m < 6) t += String.fromCodePoint(0x20000 + r(40_000));
        else if (m < 7) t += String.fromCharCode(0xd800 + r(0x800));
        else if (m < 8) t += ' ';
        else if (m < 9) t += String.fromCharCode(0x400 + r(0x800));
        else t += String.fromCharCode(r(128));
      }
      return t;
    };
    const texts = [
      payload('base64', 9_000, 31),
      payload('markdown+cjk', 30_000, 32),
      payload('json', 60_000, 33),
      junk(20_000, 34),
      OTHER_KINDS['prose, emoji']!(13_000, 35),
    ];
    vi.resetModules();
    const fresh = await import('../../src/tokens/bpe.js');
    const want = texts.map((t) => fresh.cl100kEstimate(t));
    vi.resetModules();
    const used = await import('../../src/tokens/bpe.js');
    expect(used).not.toBe(fresh);
    for (let s = 0; s < 15; s++) {
      used.cl100kCount(junk(50_000, 100 + s));
      used.cl100kEstimate(junk(50_000, 200 + s));
    }
    expect(texts.map((t) => used.cl100kEstimate(t))).toEqual(want);
  });

  it('samples a piece that runs on for tens of thousands of characters by chunks, within ±2 % of the exact count', () => {
    // One pre-tokenizer piece (a letter run, a CJK run with no punctuation): merged whole it costs seconds
    // at a megabyte; the estimate counts only where its windows overlap it.
    let seed = 7;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const letters = Array.from({ length: 40_000 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
    const cjk = Array.from({ length: 20_000 }, () => String.fromCharCode(0x4e00 + Math.floor(rand() * 2000))).join('');
    const prose = payload('prose', 20_000, 5);
    for (const [name, text] of [
      ['letters', letters],
      ['x run', 'x'.repeat(40_000)],
      ['cjk run', cjk],
      ['prose around a long word', `${prose}${letters.slice(0, 12_000)}${prose}`],
    ] as const) {
      const want = cl100kCount(text);
      const got = cl100kEstimate(text);
      expect(Math.abs(got / want - 1), `${name}: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
    }
  });

  it('is within ±2 % on periodic text whose period lines up with the windows (fixed-width records)', () => {
    // The windows start at an even grid of the text (a van der Corput sequence): on records of a fixed width,
    // when the grid's spacing is a multiple of the width, every window falls at the same place of a record and
    // samples one kind of content only (found in review: 5-79 % off on CJK + prose records of 200-4096
    // characters). Each window is shifted within 1/64 of the text, so the records' phases are sampled evenly.
    const cjk = payload('markdown+cjk', 100_000, 3).replace(/[^\u0080-\uffff]/g, '');
    const prose = payload('prose', 100_000, 4);
    for (const period of [256, 1000, 1024, 4096]) {
      for (const extra of [0, 48]) {
        let text = '';
        for (let r = 0; r < 64; r++) text += cjk.slice(r * 7, r * 7 + period / 2) + prose.slice(r * 13, r * 13 + period / 2);
        text += prose.slice(0, extra);
        const want = cl100kCount(text);
        const got = cl100kEstimate(text);
        expect(Math.abs(got / want - 1), `period ${period} + ${extra}: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
      }
    }
  });

  it('is within ±2 % on records with long runs of spaces (a window inside a run counts its characters)', () => {
    // A window reads from 24 characters before its start; from the middle of a 2,047-space run the piece it saw
    // there looked short and started before the window, so it was skipped: the window counted neither its tokens
    // (few) nor its characters (many), and the estimate was 11 % off (found in review).
    const text = digitRecords(2048, 2047);
    const want = cl100kCount(text);
    const got = cl100kEstimate(text);
    expect(Math.abs(got / want - 1), `${got} vs ${want}`).toBeLessThanOrEqual(0.02);
  });

  it('counts exactly when the sampling cap is reached far from the error target on a text not much longer than the cap', () => {
    // Records of 512 digits and a 511-character run of spaces (65k characters): a run is one piece, counted whole
    // by the window its start falls in, so the windows vary a lot; at the 24,576-character cap the standard error
    // was still 8.6 % and the estimate returned 3.2 % off (found in review). Below 4 × the cap it now counts.
    const text = digitRecords(512, 511);
    expect(cl100kEstimate(text)).toBe(cl100kCount(text));
  });

  it('counts exactly when the sampling cap is reached far from the error target on a text of any length', () => {
    // The same kind of text longer than 4 × the cap (records of a run of spaces and a run of digits, 100k-1M
    // characters): the estimate at the cap was returned with a standard error of 5-7 %, and was 10-18 % off
    // (1M characters, 300- and 600-character records: -10.5 % and -17.9 %; found in review4).
    const records = (period: number, length: number): string => {
      const record = `${' '.repeat(period / 2)}${'7'.repeat(period / 2)}`;
      return record.repeat(Math.ceil(length / period)).slice(0, length);
    };
    for (const [period, length] of [
      [450, 100_000],
      [300, 1_000_000],
      [600, 1_000_000],
    ] as const) {
      const text = records(period, length);
      const want = cl100kCount(text);
      const got = cl100kEstimate(text);
      expect(Math.abs(got / want - 1), `period ${period}, ${length} characters: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
    }
  });

  it('is within ±2 % when most windows hold no piece start (words of hundreds of letters)', () => {
    // A 48-character window counts the pieces that start in it: on words of 100-500 random letters, 13 of the
    // first 16 windows counted nothing, and the error judged from the other 3 (0.2 %) stopped the estimate
    // 2.0-2.4 % off (120k, 1M characters; found in review4).
    const words = (length: number, seed: number): string => {
      const r = lcg(seed);
      let t = '';
      while (t.length < length) {
        const n = 100 + r(400);
        for (let i = 0; i < n; i++) t += String.fromCharCode(97 + r(26));
        t += ' ';
      }
      return t.slice(0, length);
    };
    for (const length of [120_000, 1_000_000]) {
      const text = words(length, 5);
      const want = cl100kCount(text);
      const got = cl100kEstimate(text);
      expect(Math.abs(got / want - 1), `${length} characters: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
    }
  });

  it('is deterministic and exact for short texts', () => {
    const text = payload('code+base64', 40_000, 3);
    expect(cl100kEstimate(text)).toBe(cl100kEstimate(text));
    const short = payload('prose', 2_000, 3);
    expect(cl100kEstimate(short)).toBe(cl100kCount(short));
  });

  it('estimates a line-numbered file (a read tool view) from windows with the code model, within ±2 %', () => {
    // The class model, pulled by base64 and CJK windows, leaves ~1.6 % at 64 windows on such files: the ~700 windows
    // the 0.5 % target needed would cover half of anything up to ~65k characters, so they were counted exactly. The
    // code model (class pairs fitted on cheap text only) leaves ~0.8 %: 128-256 windows.
    for (const [size, seed] of [
      [30_000, 2],
      [48_000, 3],
      [60_000, 1],
    ] as const) {
      const text = OTHER_KINDS['code, numbered lines']!(size, seed);
      const got = cl100kEstimate(text);
      expect(lastEstimateWindows(), `${size} seed ${seed}`).toBeGreaterThanOrEqual(64);
      const want = cl100kCount(text);
      expect(Math.abs(got / want - 1), `${size} seed ${seed}: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
    }
  });

  it('counts text after 16 pilot windows, not 64, when the windows the target needs would cover half of it', () => {
    // Prose and tab-indented code of 13k-16k characters (~1 % at 64 windows with any of the models).
    for (const text of [payload('prose', 13_000, 1), OTHER_KINDS['code, tabs']!(16_000, 1)]) {
      expect(cl100kEstimate(text)).toBe(cl100kCount(text));
      expect(lastEstimateWindows()).toBe(16);
    }
    // Text whose windows reach the target is still estimated from its 64 first windows (or more).
    const log = payload('log', 60_000, 1);
    expect(cl100kEstimate(log)).not.toBe(cl100kCount(log));
    expect(lastEstimateWindows()).toBeGreaterThanOrEqual(64);
    // Counted at once (12,288 characters or fewer of cheap text): no window.
    cl100kEstimate(payload('code', 12_000, 1));
    expect(lastEstimateWindows()).toBe(0);
  });

  it('estimates base64 wrapped at 76 columns as base64 (from windows), whichever of its characters the 64 fixed places fall on', () => {
    // Before, a text whose fixed places fell on two line breaks (7,092 characters here) looked cheap to count, and
    // cheap text up to 12,288 characters is counted at once: ~150 ns a character instead of a third of that.
    let sawLineBreaks = 0;
    for (let size = 5_000; size <= 12_000; size += 100) {
      const text = payload('base64', size, 1);
      let breaks = 0;
      for (let k = 0; k < 64; k++) if (text.charCodeAt(Math.floor(((k + 0.5) * text.length) / 64)) === 10) breaks++;
      if (breaks >= 2) sawLineBreaks++;
      const got = cl100kEstimate(text);
      expect(lastEstimateWindows(), `${text.length} characters, ${breaks} places on a line break`).toBeGreaterThan(0);
      const want = cl100kCount(text);
      expect(Math.abs(got / want - 1), `${text.length} characters: ${got} vs ${want}`).toBeLessThanOrEqual(0.02);
    }
    expect(sawLineBreaks).toBeGreaterThan(0);
  });

  it('is what the default token cache uses above the threshold', () => {
    const text = payload('log+json', HUGE_TEXT * 10, 4);
    const cache = new BlockTokenCache(tiktokenCounter());
    expect(cache.tokens({ type: 'text', text })).toBe(cl100kEstimate(text) + 3);
  });
});

/** 64 records of `digits` pseudo-random digits (fixed seed) and a run of `spaces` spaces closed by an `x`, then 48 `z`s. */
function digitRecords(digits: number, spaces: number): string {
  let seed = 9;
  let text = '';
  for (let r = 0; r < 64; r++) {
    for (let i = 0; i < digits; i++) text += String((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) % 10);
    text += `${' '.repeat(spaces)}x`;
  }
  return `${text}${'z'.repeat(48)}`;
}

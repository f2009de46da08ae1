/**
 * The Office estimate against real files: a .docx and an .xlsx built here (zipped XML, test/tokens/office-fixture.ts)
 * from known text, whose extracted text is counted with the real tokenizer (js-tiktoken's cl100k_base). The window
 * check must not count less than that (a request it passes would be over the window, and refused); a zip's deflate
 * packs English ~3× (measured below: a 109 KB docx carries 310 KB of text), so the file size at 4 bytes a token
 * counted 0.32× of it. Nor far more: a count several times too high compacts early, or refuses a request that fits.
 */
import { readFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { officeDocumentTokens } from '../../src/tokens/document.js';
import { docx, xlsx } from './office-fixture.js';

const cl100k = getEncoding('cl100k_base');
const truth = (text: string) => cl100k.encode(text).length;

/** English prose: the paragraphs of this repository's docs. */
const PROSE = ['drop-in.md', 'benchmarks.md', 'models.md', 'providers.md'].flatMap((f) =>
  readFileSync(new URL(`../../docs/${f}`, import.meta.url), 'utf8')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p.length > 40 && !p.startsWith('```') && !p.startsWith('|')),
);
const WORDS = PROSE.join(' ').split(' ');
const csv = (rows: readonly (readonly (string | number)[])[]) => rows.map((r) => r.join(',')).join('\n');

const cases: [string, Buffer, string][] = [
  ['a docx of 400 prose paragraphs', docx(PROSE.slice(0, 400)), PROSE.slice(0, 400).join('\n')],
  ['a docx of 50 prose paragraphs', docx(PROSE.slice(0, 50)), PROSE.slice(0, 50).join('\n')],
  ['a docx of 20 prose paragraphs and 400 styles (markup outside the body)', docx(PROSE.slice(0, 20), 400), PROSE.slice(0, 20).join('\n')],
  ...(() => {
    const short = Array.from({ length: 3_000 }, (_, i) => WORDS.slice(i * 2, i * 2 + 2).join(' '));
    return [['a docx of 3,000 two-word paragraphs (markup-heavy)', docx(short), short.join('\n')] as [string, Buffer, string]];
  })(),
  ...(() => {
    const rows = Array.from({ length: 5_000 }, (_, i) => [i, ((i * 37) % 1000) / 10, i * 3, (i * 7919) % 10007]);
    return [['an xlsx of 5,000 numeric rows', xlsx(rows), csv(rows)] as [string, Buffer, string]];
  })(),
  ...(() => {
    const rows = Array.from({ length: 5_000 }, (_, i) => [`item-${(i * 7919) % 10007}`, ['north', 'south', 'east', 'west'][i % 4]!, ((i * 37) % 1000) / 10, i]);
    return [['an xlsx of 5,000 mixed rows', xlsx(rows), csv(rows)] as [string, Buffer, string]];
  })(),
  ...(() => {
    const rows = Array.from({ length: 400 }, (_, i) => [PROSE[i % PROSE.length]!, i]);
    return [['an xlsx of 400 rows of prose', xlsx(rows), csv(rows)] as [string, Buffer, string]];
  })(),
];

describe('officeDocumentTokens on zipped Office files', () => {
  it.each(cases)('%s: at least the text’s tokens, at most 3× them', (_, file, text) => {
    const estimate = officeDocumentTokens(file.toString('base64'));
    const real = truth(text);
    expect(estimate).toBeGreaterThanOrEqual(real);
    expect(estimate).toBeLessThanOrEqual(3 * real);
  });

  it('reads the sizes from the zip’s own directory: line-wrapped base64 counts the same', () => {
    const b64 = docx(PROSE.slice(0, 50)).toString('base64');
    expect(officeDocumentTokens(b64.replace(/(.{76})/g, '$1\r\n'))).toBe(officeDocumentTokens(b64));
  });

  it('a damaged zip (its directory cut off) falls back to the size estimate, never throws', () => {
    const file = docx(PROSE.slice(0, 50));
    const cut = file.subarray(0, file.length - 30).toString('base64');
    expect(officeDocumentTokens(cut)).toBe(Math.ceil((file.length - 30) / 4));
  });
});

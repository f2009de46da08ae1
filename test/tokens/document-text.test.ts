import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { OFFICE_BYTES_PER_TOKEN } from '../../src/tokens/document.js';
import { pdf } from './pdf-fixture.js';

/** The real tokenizer (js-tiktoken's cl100k_base), not the engine's own counter: what a document's text costs. */
const cl100k = getEncoding('cl100k_base');
const truth = (text: string): number => cl100k.encode(text).length;
/** Per-block framing the counter adds (counter.ts BLOCK_OVERHEAD). */
const FRAMING = 3;

const base64Doc = (mediaType: string, text: string) => ({
  type: 'document',
  source: { type: 'base64', media_type: mediaType, data: Buffer.from(text, 'utf8').toString('base64') },
});

/** Realistic text documents of each text-like format Converse names (csv, md, html, txt), `rows` lines long. */
function csv(rows: number): string {
  const lines = ['id,name,city,amount,updated_at'];
  for (let i = 0; i < rows; i++)
    lines.push(`${i},customer-${(i * 7919) % 10007},Zürich,${((i * 37) % 1000) / 10},2026-11-${String((i % 28) + 1).padStart(2, '0')}`);
  return `${lines.join('\n')}\n`;
}
function markdown(rows: number): string {
  const out = ['# Release notes', ''];
  for (let i = 0; i < rows; i++) out.push(`- **${i}**: fixed the retry of request ${i * 13} when the cache point moved (see \`src/render/gate.ts\`).`);
  return out.join('\n');
}
function html(rows: number): string {
  const cells = Array.from({ length: rows }, (_, i) => `<tr><td>${i}</td><td class="n">${i * 17}</td><td>row ${i} &amp; more</td></tr>`);
  return `<!doctype html><html><body><table>${cells.join('\n')}</table></body></html>`;
}
function plain(rows: number): string {
  return Array.from({ length: rows }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog ${i % 10} times.`).join('\n');
}

const KINDS = [
  ['text/csv', csv],
  ['text/markdown', markdown],
  ['text/html', html],
  ['text/plain', plain],
] as const;

describe('text-like documents sent as bytes', () => {
  it.each(KINDS)('counts a small %s document by its text, not as a PDF page (an overestimate moved cache points)', (mediaType, make) => {
    const text = make(3);
    const n = new BlockTokenCache().tokens(base64Doc(mediaType, text));
    // Exact below HUGE_TEXT: the tokenizer's count of the decoded text. As a PDF page it was 3,100.
    expect(n).toBe(truth(text) + FRAMING);
    expect(n).toBeLessThan(200);
  });

  it.each(KINDS)(
    'counts a large %s document by its text (as pages it was a fraction of it: the window check passed what the API refuses)',
    (mediaType, make) => {
      const text = make(6_000); // ~400-600 KB
      const real = truth(text);
      const n = new BlockTokenCache().tokens(base64Doc(mediaType, text));
      // Above HUGE_TEXT the counter samples (within ±2 % of the exact count, see test/tokens/bpe.test.ts).
      expect(Math.abs(n - real) / real).toBeLessThan(0.03);
    },
  );

  it('decodes UTF-8 (not Latin-1) and keeps the title and context as text the model reads', () => {
    const text = 'Straße;Größe\nZürich;日本語\n';
    const block = { ...base64Doc('text/csv', text), title: 'Cities', context: 'from the atlas' };
    expect(new BlockTokenCache().tokens(block)).toBe(truth(`Cities\nfrom the atlas\n${text}`) + FRAMING);
  });

  it('counts the same document the same whether it came as bytes or as a text source', () => {
    const text = csv(40);
    const asBytes = new BlockTokenCache().tokens(base64Doc('text/csv', text));
    const asText = new BlockTokenCache().tokens({ type: 'document', source: { type: 'text', media_type: 'text/csv', data: text } });
    expect(asBytes).toBe(asText);
  });

  it('counts text bytes that are not valid base64 by their characters (an estimate, never a throw)', () => {
    const bad = 'not base64 at all !!! '.repeat(50);
    const n = new BlockTokenCache().tokens({ type: 'document', source: { type: 'base64', media_type: 'text/plain', data: bad } });
    expect(n).toBe(truth(bad) + FRAMING);
  });

  it('still counts a PDF by its pages', () => {
    const onePage = new BlockTokenCache().tokens({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf(1, 50_000) } });
    expect(onePage).toBe(1_500 + 1_600 + FRAMING);
  });

  it('estimates an Office document (doc, docx, xls, xlsx) from its size, not as PDF pages', () => {
    const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    const small = Buffer.alloc(2_000, 65).toString('base64');
    const large = Buffer.alloc(400_000, 65).toString('base64');
    const count = (data: string) => new BlockTokenCache().tokens({ type: 'document', source: { type: 'base64', media_type: docx, data } });
    expect(count(small)).toBe(Math.ceil(2_000 / OFFICE_BYTES_PER_TOKEN) + FRAMING);
    expect(count(large)).toBe(Math.ceil(400_000 / OFFICE_BYTES_PER_TOKEN) + FRAMING);
  });
});

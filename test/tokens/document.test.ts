import { describe, expect, it } from 'vitest';
import { BlockTokenCache, blockText, charCounter } from '../../src/tokens/counter.js';
import { pdf } from './pdf-fixture.js';

const pdfBlock = (data: string) => ({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } });

/** Anthropic's PDF page range (text 1,500-3,000 per page plus the page image, see counter.ts). */
const PAGE_MIN = 1_500;
const PAGE_MAX = 3_000 + 1_600;

describe('document blocks', () => {
  it('counts a 1 MB base64 PDF by its pages, not by its base64 (which would be hundreds of thousands of tokens)', () => {
    const cache = new BlockTokenCache();
    const big = cache.tokens(pdfBlock(pdf(3, 1_000_000)));
    expect(big).toBeGreaterThanOrEqual(3 * PAGE_MIN);
    expect(big).toBeLessThanOrEqual(3 * PAGE_MAX + 10);
    // The same pages with little stream data count the same: the bytes are not what the model reads.
    expect(new BlockTokenCache().tokens(pdfBlock(pdf(3, 1_000)))).toBe(big);
  });

  it('grows with the page count and is deterministic', () => {
    const counter = charCounter();
    const one = new BlockTokenCache(counter).tokens(pdfBlock(pdf(1, 5_000)));
    const ten = new BlockTokenCache(counter).tokens(pdfBlock(pdf(10, 5_000)));
    expect(ten - one).toBe(9 * (one - 3)); // 3 = the per-block framing
    expect(new BlockTokenCache(counter).tokens(pdfBlock(pdf(10, 5_000)))).toBe(ten);
  });

  it('falls back to the decoded size when no page object is visible (compressed object streams, or not a PDF)', () => {
    const counter = charCounter();
    // 300 KB of bytes with no `/Type /Page`: a documented size estimate, far below the base64's own count.
    const bytes = Buffer.alloc(300_000, 7).toString('base64');
    const n = new BlockTokenCache(counter).tokens(pdfBlock(bytes));
    expect(n).toBeGreaterThanOrEqual(PAGE_MIN);
    expect(n).toBeLessThan(Math.ceil(bytes.length / 4) / 10);
    expect(new BlockTokenCache(counter).tokens(pdfBlock(bytes))).toBe(n);
    // The estimate follows the decoded size: ten times the bytes, more pages assumed.
    expect(n).toBeGreaterThan(new BlockTokenCache(counter).tokens(pdfBlock(Buffer.alloc(30_000, 7).toString('base64'))));
    // Not base64 at all: still an estimate, no throw.
    expect(new BlockTokenCache(counter).tokens(pdfBlock('not base64 !!!'))).toBeGreaterThanOrEqual(PAGE_MIN);
  });

  it('counts a plain-text source by its text, title and context (no JSON framing)', () => {
    const data = 'The grass is green. The sky is blue.';
    const { text, extra } = blockText({
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data },
      title: 'Colours',
      context: 'from the handbook',
      citations: { enabled: true },
    });
    expect(text).toContain(data);
    expect(text).toContain('Colours');
    expect(text).toContain('from the handbook');
    expect(text).not.toContain('media_type');
    expect(text).not.toContain('citations');
    expect(extra).toBe(0);
  });

  it('counts a content source by its parts (text as text, an image by the image rule)', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo='.repeat(1_000) } };
    const parts = blockText({ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'The sky is blue.' }, image] } });
    expect(parts.text).toContain('The sky is blue.');
    expect(parts.text).not.toContain('iVBOR');
    expect(parts.extra).toBe(blockText(image).extra);
    expect(blockText({ type: 'document', source: { type: 'content', content: 'The sky is blue.' } })).toEqual({ text: 'The sky is blue.', extra: 0 });
  });

  it('estimates url and file sources it cannot read, the same each time', () => {
    const url = blockText({ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, title: 'A' });
    const file = blockText({ type: 'document', source: { type: 'file', file_id: 'file_011' } });
    expect(url.extra).toBeGreaterThanOrEqual(PAGE_MIN);
    expect(file.extra).toBe(url.extra);
    expect(url.text).not.toContain('example.com');
    expect(blockText({ type: 'document', source: { type: 'url', url: 'https://example.com/b.pdf' } }).extra).toBe(url.extra);
  });

  it('keeps the image rule', () => {
    expect(blockText({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x'.repeat(100_000) } })).toEqual({ text: '', extra: 1600 });
  });
});

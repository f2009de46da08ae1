/**
 * How a base64 document's media type picks its count (document.ts documentBytesKind), and the Office estimate on
 * base64 as it arrives from a file (line-wrapped, any length). Each case was a mutation the suite let through.
 */
import { describe, expect, it } from 'vitest';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { documentBytesKind, OFFICE_BYTES_PER_TOKEN, officeDocumentTokens } from '../../src/tokens/document.js';
import { pdf } from './pdf-fixture.js';

const bytesDoc = (data: string, mediaType?: unknown) => ({
  type: 'document',
  source: mediaType === undefined ? { type: 'base64', data } : { type: 'base64', media_type: mediaType, data },
});

describe('documentBytesKind', () => {
  it('reads the media type as a media type: case-insensitive, parameters left out', () => {
    expect(documentBytesKind('Text/CSV')).toBe('text');
    expect(documentBytesKind('text/plain; charset=utf-8')).toBe('text');
    expect(documentBytesKind('APPLICATION/PDF')).toBe('pdf');
    expect(documentBytesKind('application/pdf; version=1.7')).toBe('pdf');
    expect(documentBytesKind('application/vnd.ms-excel')).toBe('office');
  });

  it('takes a base64 document with no media type (absent, empty, not a string) as a PDF: the API takes only PDFs as base64', () => {
    for (const mediaType of [undefined, '', null, 7]) expect(documentBytesKind(mediaType)).toBe('pdf');
  });

  it('counts a PDF whose media type is missing or empty by its pages, not by its size', () => {
    const data = pdf(2, 40_000);
    const asPdf = new BlockTokenCache().tokens(bytesDoc(data, 'application/pdf'));
    expect(new BlockTokenCache().tokens(bytesDoc(data))).toBe(asPdf);
    expect(new BlockTokenCache().tokens(bytesDoc(data, ''))).toBe(asPdf);
    // A text media type in capitals with a charset is still read as its text, not as pages.
    const csv = Buffer.from('a,b\n1,2\n', 'utf8').toString('base64');
    expect(new BlockTokenCache().tokens(bytesDoc(csv, 'TEXT/CSV; charset=utf-8'))).toBeLessThan(50);
  });
});

describe('officeDocumentTokens', () => {
  it('counts the decoded bytes of line-wrapped base64 (MIME wraps at 76), whitespace left out', () => {
    const raw = Buffer.alloc(30_000, 9).toString('base64');
    const wrapped = raw.replace(/(.{76})/g, '$1\r\n');
    expect(officeDocumentTokens(wrapped)).toBe(officeDocumentTokens(raw));
    expect(officeDocumentTokens(raw)).toBe(30_000 / OFFICE_BYTES_PER_TOKEN);
  });

  it('rounds a part token up, at every padding', () => {
    for (const size of [1, 2, 3, 4, 5, 6, 4_001, 4_002, 4_003]) {
      expect(officeDocumentTokens(Buffer.alloc(size, 1).toString('base64'))).toBe(Math.ceil(size / OFFICE_BYTES_PER_TOKEN));
    }
    expect(officeDocumentTokens('')).toBe(0);
  });
});

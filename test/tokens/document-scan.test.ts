/**
 * Counting a base64 PDF's pages scans it in bounded chunks (a 30 MB PDF decoded at once made a ~22 MB string per
 * block), with the results of decoding the whole payload: page objects split across a chunk edge, base64 as `atob`
 * reads it (whitespace anywhere, padding, invalid input), the size fallback. Synthetic PDFs of several sizes and
 * real ones printed by Chromium (where it is installed, as for the report's browser test).
 */
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PDF_SCAN_CHUNK_CHARS, pdfPages } from '../../src/tokens/document.js';
import { pdf, pdfBytes } from './pdf-fixture.js';

/** The count as it was made before chunking: the whole payload decoded at once. The chunked scan must agree. */
function wholePages(base64: string): number {
  let bytes: string;
  try {
    bytes = atob(base64);
  } catch {
    return Math.max(1, Math.ceil((base64.length * 3) / 4 / 100_000));
  }
  const pages = bytes.match(/\/Type\s*\/Page(?![A-Za-z0-9])/g)?.length ?? 0;
  return pages > 0 ? pages : Math.max(1, Math.ceil(bytes.length / 100_000));
}

const b64 = (latin1: string): string => Buffer.from(latin1, 'latin1').toString('base64');

/** Runs `f` recording the longest string `atob` was given. */
function longestDecoded<T>(f: () => T): { result: T; longest: number } {
  const real = globalThis.atob;
  let longest = 0;
  globalThis.atob = (s: string) => {
    longest = Math.max(longest, String(s).length);
    return real(s);
  };
  try {
    return { result: f(), longest };
  } finally {
    globalThis.atob = real;
  }
}

describe('pdfPages scans in chunks', () => {
  it('never decodes more than a chunk at a time: a 30 MB PDF is not one 22 MB string', () => {
    const big = pdf(12, 22_000_000);
    expect(big.length).toBeGreaterThan(29_000_000);
    const { result, longest } = longestDecoded(() => pdfPages(big));
    expect(result).toBe(12);
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(PDF_SCAN_CHUNK_CHARS + 4);
    expect(PDF_SCAN_CHUNK_CHARS).toBeLessThanOrEqual(1 << 20);
  });

  it('counts what decoding the whole payload counted, for PDFs of several sizes', () => {
    for (const pages of [1, 3, 40]) {
      for (const padding of [0, 1_000, 100_000, 1_000_000, 5_000_000]) {
        const data = pdf(pages, padding);
        expect(pdfPages(data), `${pages} pages, ${padding} bytes`).toBe(pages);
        expect(pdfPages(data), `${pages} pages, ${padding} bytes`).toBe(wholePages(data));
      }
    }
  });

  it('counts a page object split across a chunk edge once, at every offset and chunk size', () => {
    for (const chunk of [4, 8, 16, 20, 64]) {
      for (let lead = 0; lead < 30; lead++) {
        const data = pdfBytes(3, 40, ' '.repeat(lead)).toString('base64');
        expect(pdfPages(data, chunk), `chunk ${chunk}, lead ${lead}`).toBe(3);
      }
    }
  });

  it('counts a page object that straddles the default chunk edge', () => {
    const plain = pdfBytes(2, 10).toString('latin1');
    const first = plain.indexOf('/Type /Page ');
    const edge = (PDF_SCAN_CHUNK_CHARS / 4) * 3; // decoded bytes per chunk
    for (const cut of [1, 5, 6, 10]) {
      // Spaces after the header move the first page object so that `cut` of its bytes fall before the edge.
      const bytes = pdfBytes(2, 10, ' '.repeat(edge - cut - first));
      expect(bytes.toString('latin1').indexOf('/Type /Page ')).toBe(edge - cut);
      expect(pdfPages(bytes.toString('base64')), `cut ${cut}`).toBe(2);
    }
  });

  it('near misses across an edge stay misses, and a match held open by whitespace longer than a chunk still counts', () => {
    const cases: [string, number][] = [
      ['/Type /Pages', 0],
      ['/Type /PageX', 0],
      ['/Type /Page9', 0],
      ['/Type /Page ', 1],
      ['/Type /Page', 1], // at the very end of the data: nothing follows, so it is a page object
      ['/Type\n\r\t/Page>>', 1],
      [`/Type${' '.repeat(200)}/Page>>`, 1],
      [`/Type${'\u00a0'.repeat(50)}/Page/`, 1],
      ['/Typ /Page', 0],
      ['/Type /Type /Page ', 1],
    ];
    for (const [text, n] of cases) {
      for (let lead = 0; lead < 12; lead++) {
        for (const tail of ['', ' ', 'x'.repeat(13)]) {
          const data = b64(`${'%'.repeat(lead)}${text}${tail}`);
          const want = text === '/Type /Page' && tail.startsWith('x') ? 0 : n;
          for (const chunk of [4, 8, 12, 16, 32]) {
            const got = pdfPages(data, chunk);
            expect(got, JSON.stringify({ text, lead, tail, chunk })).toBe(wholePages(data));
            if (want > 0) expect(got).toBe(want);
          }
        }
      }
    }
  });

  it('reads base64 as atob does: whitespace anywhere, padding, and invalid input fall back the same way', () => {
    const page = b64('<< /Type /Page >> <</Type /Page>>');
    const lines = page.replace(/(.{7})/g, '$1\r\n');
    const cases = [
      page,
      lines,
      ` \t${page}\n\f `,
      'YWI=',
      'YQ==',
      'YQ=',
      'YQ',
      'Y',
      '',
      '====',
      'YQ==\n',
      'YQ=\n=',
      'Y Q = =',
      'YQ==YQ==',
      `${page}=`,
      `${page}=YQ=`, // page objects before a misplaced `=`: atob refuses the whole text, so they are not counted
      `${page}==YQ`,
      `${page}\n=\t=`,
      `${page.slice(0, 8)}=${page.slice(8)}`,
      `${page}!`,
      `€${page}`,
      'not base64 !!!',
      Buffer.alloc(300_000, 7).toString('base64'),
      Buffer.alloc(30_000, 7).toString('base64'),
    ];
    for (const data of cases) {
      for (const chunk of [4, 8, 12, 100, PDF_SCAN_CHUNK_CHARS]) {
        expect(pdfPages(data, chunk), JSON.stringify({ data: data.slice(0, 40), chunk })).toBe(wholePages(data));
      }
    }
  });

  it('agrees with decoding the whole payload on arbitrary input (property)', () => {
    const alphabet = fc.constantFrom(...'ABCDQWYZaby0189+/= \n\r\t'.split(''));
    const marked = fc
      .array(fc.constantFrom('/Type /Page ', '/Type/Page', '/Type /Pages', '/Type\n/Page>', 'x', ' ', '\n', '/', 'Page'), { maxLength: 30 })
      .map((parts) => b64(parts.join('')));
    // A marked text with one character put anywhere: `=` (valid only as padding), whitespace, or one atob refuses.
    const spoiled = fc
      .tuple(marked, fc.nat(), fc.constantFrom('=', '==', ' ', '\n', '-', 'é'))
      .map(([data, at, c]) => `${data.slice(0, at % (data.length + 1))}${c}${data.slice(at % (data.length + 1))}`);
    const input = fc.oneof(
      fc.array(alphabet, { maxLength: 60 }).map((cs) => cs.join('')),
      marked,
      spoiled,
    );
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 16 }), (data, quads) => {
        expect(pdfPages(data, quads * 4)).toBe(wholePages(data));
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses a chunk size that would split a base64 quantum', () => {
    for (const chunk of [0, 3, 6, -4, 1.5]) expect(() => pdfPages('YQ==', chunk)).toThrow(RangeError);
  });
});

const CHROMIUM = process.env.CACHEPOINT_CHROMIUM ?? '/usr/bin/chromium';

/** A canvas of random pixels (incompressible: the PDF Chromium prints carries megabytes of image stream). */
const NOISE = `<canvas id="noise" width="900" height="900"></canvas><script>
const g = document.getElementById('noise').getContext('2d');
const d = g.createImageData(900, 900);
let x = 7;
for (let i = 0; i < d.data.length; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; d.data[i] = i % 4 === 3 ? 255 : x >>> 24; }
g.putImageData(d, 0, 0);
</script>`;

describe.runIf(existsSync(CHROMIUM))('pdfPages on PDFs Chromium prints', { timeout: 120_000 }, () => {
  it('counts their pages, chunked at the default size and with an edge inside the first page object', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage();
      for (const [pages, withImage] of [
        [1, false],
        [7, false],
        [60, false],
        [4, true],
      ] as const) {
        const body = Array.from(
          { length: pages },
          (_, i) => `<section style="page-break-after:always"><h1>Page ${i + 1}</h1>${withImage && i === 1 ? NOISE : ''}</section>`,
        );
        await page.setContent(body.join(''));
        const bytes = await page.pdf({ format: 'A4' });
        const data = bytes.toString('base64');
        if (withImage) expect(bytes.length).toBeGreaterThan(2_000_000);
        expect(pdfPages(data), `${pages} pages`).toBe(pages);
        expect(wholePages(data)).toBe(pages);
        // A chunk edge 5 bytes into the first page object.
        const first = /\/Type\s*\/Page(?![A-Za-z0-9])/.exec(bytes.toString('latin1'))!.index;
        const quads = Math.ceil((first + 5) / 3);
        expect(quads * 3 - first).toBeGreaterThanOrEqual(5);
        expect(quads * 3 - first).toBeLessThan(10);
        expect(pdfPages(data, quads * 4), `${pages} pages, edge inside`).toBe(pages);
      }
    } finally {
      await browser.close();
    }
  });
});

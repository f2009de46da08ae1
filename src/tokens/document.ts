/**
 * What a `document` block costs, by what the provider bills. Text sources are text the model reads; base64 bytes are
 * billed by their kind (see {@link documentBytesKind}): a PDF as pages (each page's extracted text plus an image of
 * it), a text-like file (csv, md, html, txt: Converse's text formats) as its decoded text, an Office file by an
 * estimate from its size. Url and file sources are fetched by the API, so their bytes are not here to count.
 * Counting the block's JSON instead made a 1 MB PDF ~950,000 tokens; counting every base64 document as PDF pages
 * made a 200-byte CSV 3,100 tokens (cache points misplaced) and a 500 KB one 15,500 (the window check passed a
 * request of ~150,000).
 */

import { BASE64_SPACES, base64Reader, decodedLength } from '../internal/base64.js';

/**
 * Text tokens one PDF page costs. Anthropic, "PDF support", Estimate your costs
 * (https://platform.claude.com/docs/en/build-with-claude/pdf-support, read 2026-12-01): "Each page typically uses
 * 1,500-3,000 tokens per page depending on content density", plus the page's image at the vision cost. A page
 * counts the low end of that range plus counter.ts's image figure: the thresholds need the order of magnitude, and
 * calibration from reported usage corrects the rest. On Bedrock's Converse API a PDF sent without citations is read
 * as its text only ("Converse Document Chat ... Uses approximately 1,000 tokens for a 3-page PDF", same page, read
 * 2026-12-02), so there this figure overestimates: the counter does not know the provider; calibration corrects it.
 */
export const PDF_PAGE_TEXT_TOKENS = 1_500;

/**
 * Estimate: decoded bytes per page when no page object is visible (object streams compress them, or the data is
 * not a PDF). A text page runs to a few kilobytes, a scanned one to hundreds; 100 KB keeps a large scan from
 * counting as hundreds of pages and a small file at one page at least.
 */
const FALLBACK_BYTES_PER_PAGE = 100_000;

/**
 * Estimate: pages assumed for a url or file source, whose bytes the API fetches itself (a short report). Fixed, so
 * the same block always counts the same.
 */
export const UNSEEN_DOCUMENT_PAGES = 5;

/**
 * Estimate: bytes per token of an Office file's text (doc, docx, xls, xlsx). Bedrock's Converse API takes these
 * formats (DocumentBlock, "Valid Values: pdf | csv | doc | docx | xls | xlsx | html | txt | md",
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html, read 2026-12-02) and gives
 * the model their text ("Converse Document Chat ... text extraction only", Anthropic, "PDF support",
 * https://platform.claude.com/docs/en/build-with-claude/pdf-support, read 2026-12-02); neither publishes a figure per
 * format. 4 bytes a token is cl100k's English rate (one byte a character), applied to what holds the text: a doc's or
 * xls's bytes (its text beside binary records, so no more text than bytes), and the uncompressed XML parts of a docx
 * or xlsx that hold its text (no more text than XML; {@link ZIPPED_BYTES_PER_TOKEN} caps that). Calibration from
 * reported usage corrects the rest.
 */
export const OFFICE_BYTES_PER_TOKEN = 4;

/**
 * Estimate: at least this many zipped bytes per token of a docx's or xlsx's text, the cap on its XML parts' count.
 * Deflate packs English about 3× (measured in test/tokens/office-zip.test.ts: a 109 KB docx of 310 KB of prose text,
 * 86,485 cl100k tokens, 1.26 zipped bytes a token); the file's size at 4 bytes a token counted 0.32× of its text. The
 * XML alone counts markup too (a docx of two-word paragraphs: 9× its text): the smaller of the two is within 1–3× of
 * the text's tokens on the shapes measured there, never under it.
 */
export const ZIPPED_BYTES_PER_TOKEN = 1;

/** The zip parts of a docx and an xlsx that hold the text Bedrock extracts: body, headers, footers, notes, comments; cells. */
const TEXT_PARTS = /^(?:word\/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml|xl\/(?:sharedStrings|worksheets\/[^/]+)\.xml)$/;

/**
 * How the bytes of a base64 document are billed, by its media type. `text`: a text-like file (`text/plain`,
 * `text/csv`, `text/html`, `text/markdown`, any `text/*`), read as its decoded text: a text document is given to the
 * model as its text (Anthropic, "Citations": plain text documents are chunked into sentences,
 * https://platform.claude.com/docs/en/build-with-claude/citations, read 2026-12-02; only a PDF is read as page
 * images, "PDF support" above; Bedrock converts csv, html, txt and md for the model the same way, an estimate: no
 * AWS figure found). `pdf`: `application/pdf`, and a source with no
 * media type (the API takes base64 documents as PDFs only), counted by pages. `office`: anything else (Converse's
 * doc, docx, xls, xlsx), estimated from its size ({@link OFFICE_BYTES_PER_TOKEN}).
 *
 * @example
 * documentBytesKind('text/csv'); // 'text'
 */
export function documentBytesKind(mediaType: unknown): 'pdf' | 'text' | 'office' {
  if (typeof mediaType !== 'string' || mediaType === '') return 'pdf';
  const type = mediaType.toLowerCase().split(';')[0]!.trim();
  if (type === 'application/pdf') return 'pdf';
  return type.startsWith('text/') ? 'text' : 'office';
}

const UTF8 = new TextDecoder('utf-8');

/**
 * The text of a base64 text document as UTF-8 (invalid sequences become U+FFFD, as a reader shows them), or
 * `undefined` when the data is not base64 as `atob` reads it (then the caller counts its characters: an estimate).
 *
 * @example
 * decodeTextDocument(btoa('a,b\n1,2\n')); // 'a,b\n1,2\n'
 */
export function decodeTextDocument(base64: string): string | undefined {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return UTF8.decode(bytes);
}

/**
 * Estimated tokens of an Office document's extracted text. A docx or xlsx (a zip): the uncompressed sizes of the parts
 * that hold its text, read from the zip's central directory without inflating anything, at
 * {@link OFFICE_BYTES_PER_TOKEN}, and at most its zipped size at {@link ZIPPED_BYTES_PER_TOKEN}. A doc, an xls, or a
 * zip whose directory cannot be read: its decoded size at {@link OFFICE_BYTES_PER_TOKEN}.
 *
 * @example
 * officeDocumentTokens(btoa('x'.repeat(4_000))); // 1000 (not a zip)
 */
export function officeDocumentTokens(base64: string): number {
  const size = decodedLength(base64);
  const parts = zipTextBytes(base64, size);
  return parts === undefined ? Math.ceil(size / OFFICE_BYTES_PER_TOKEN) : Math.ceil(Math.min(parts / OFFICE_BYTES_PER_TOKEN, size / ZIPPED_BYTES_PER_TOKEN));
}

/**
 * The uncompressed bytes of a zip's {@link TEXT_PARTS}, from its end-of-central-directory record and central directory
 * (PKWARE APPNOTE.TXT 4.3.12, 4.3.16), or undefined: not a zip, a zip64, damaged, or none of those parts in it.
 */
function zipTextBytes(data: string, size: number): number | undefined {
  if (size < 22) return undefined;
  const bytesAt = base64Reader(data);
  const u16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
  const u32 = (b: Uint8Array, i: number) => (u16(b, i) | (u16(b, i + 2) << 16)) >>> 0;
  // A zip starts with a local file header, "PK\x03\x04".
  const head = bytesAt(0, 4);
  if (head === undefined || u32(head, 0) !== 0x04034b50) return undefined;
  // The end record is the last 22 bytes, before a comment of at most 65,535 bytes.
  const tailStart = Math.max(0, size - 22 - 0xffff);
  const tail = bytesAt(tailStart, size);
  if (tail === undefined) return undefined;
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (u32(tail, i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return undefined;
  const dirSize = u32(tail, end + 12);
  const dirOffset = u32(tail, end + 16);
  if (dirOffset === 0xffffffff || dirOffset + dirSize > tailStart + end) return undefined;
  const dir = bytesAt(dirOffset, dirOffset + dirSize);
  if (dir === undefined || dir.length < dirSize) return undefined;
  const names = new TextDecoder();
  let bytes = 0;
  let found = false;
  for (let i = 0; i + 46 <= dir.length; ) {
    if (u32(dir, i) !== 0x02014b50) return undefined;
    const uncompressed = u32(dir, i + 24);
    const nameLength = u16(dir, i + 28);
    const name = names.decode(dir.subarray(i + 46, i + 46 + nameLength));
    if (TEXT_PARTS.test(name)) {
      if (uncompressed === 0xffffffff) return undefined; // zip64: the size is in an extra field
      bytes += uncompressed;
      found = true;
    }
    i += 46 + nameLength + u16(dir, i + 30) + u16(dir, i + 32);
  }
  return found ? bytes : undefined;
}

/** A page object (`/Type /Page`, not the `/Type /Pages` tree nodes). */
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z0-9])/g;

/**
 * The start of a page object a chunk's end may cut: any prefix of `/Type\s*\/Page` up to the end, or all of it
 * (the byte after it decides whether it is `/Pages`). The scan keeps that much for the next chunk.
 */
const OPEN_AT_END = /\/(?:T(?:y(?:p(?:e(?:\s*(?:\/(?:P(?:a(?:g(?:e)?)?)?)?)?)?)?)?)?)?$/;

/**
 * Base64 characters decoded at a time (a multiple of 4: whole 3-byte groups): 192 KB of bytes, so counting a
 * 30 MB PDF holds about that much, not the whole decoded payload (~22 MB per block, once decoded at once).
 */
export const PDF_SCAN_CHUNK_CHARS = 256 * 1024;

/** What `atob` refuses (besides the whitespace it skips: BASE64_SPACES). */
const NOT_BASE64 = /[^A-Za-z0-9+/=\t\n\f\r ]/;
/** From the first `=` on: one or two `=` and whitespace, else atob refuses the text. */
const PADDING = /^(?:=[\t\n\f\r ]*){1,2}$/;

/** Page objects confirmed in `text`, and the part of it a page object may still continue into the next chunk. */
function scan(text: string, last: boolean): { readonly pages: number; readonly open: string } {
  const keep = last ? text.length : (OPEN_AT_END.exec(text)?.index ?? text.length);
  let pages = 0;
  // A match that ends exactly at a chunk's end starts at `keep`: it is counted with the byte after it.
  for (PAGE_OBJECT.lastIndex = 0; PAGE_OBJECT.exec(text) !== null && PAGE_OBJECT.lastIndex <= keep; ) pages++;
  return { pages, open: text.slice(keep) };
}

/**
 * Pages of a base64 PDF: its page objects counted in the decoded bytes, else (none visible, or not base64 as
 * `atob` reads it) the decoded size at {@link FALLBACK_BYTES_PER_PAGE}, at least one. An incremental update that
 * rewrites a page counts it twice: an overestimate, the safe side for window checks. Decoded and scanned
 * `chunkChars` base64 characters at a time (a page object cut by a chunk's end is completed from the next), with
 * the counts of decoding the whole payload at once.
 *
 * @example
 * pdfPages(readFileSync('report.pdf').toString('base64')); // 12
 */
export function pdfPages(base64: string, chunkChars = PDF_SCAN_CHUNK_CHARS): number {
  if (!Number.isInteger(chunkChars) || chunkChars < 4 || chunkChars % 4 !== 0) {
    throw new RangeError(`chunkChars must be a positive multiple of 4 (whole base64 groups), got ${chunkChars}`);
  }
  const unreadable = (): number => Math.max(1, Math.ceil((base64.length * 3) / 4 / FALLBACK_BYTES_PER_PAGE));
  // atob's rules for `=`: only at the end, one or two (whitespace around them aside).
  const eq = base64.indexOf('=');
  if (eq >= 0 && !PADDING.test(base64.slice(eq))) return unreadable();
  const end = eq >= 0 ? eq : base64.length;
  let carry = ''; // base64 characters short of a whole group (whitespace left out), decoded with the next chunk
  let open = '';
  let bytes = 0;
  let pages = 0;
  for (let at = 0; at < end; at += chunkChars) {
    const slice = base64.slice(at, Math.min(end, at + chunkChars));
    let piece = carry + slice;
    let decoded: string | undefined;
    // Usually whole groups and no whitespace: decoded as is (whitespace or a bad character shows as fewer bytes or a throw).
    if (piece.length % 4 === 0) {
      try {
        decoded = atob(piece);
      } catch {
        // not clean base64 here: the careful path below says whether it is base64 at all
      }
      if (decoded !== undefined && decoded.length * 4 !== piece.length * 3) decoded = undefined;
    }
    if (decoded === undefined) {
      if (NOT_BASE64.test(slice)) return unreadable();
      const clean = slice.replace(BASE64_SPACES, '');
      piece = carry + clean;
      const whole = piece.length - (piece.length % 4);
      carry = piece.slice(whole);
      if (whole === 0) continue;
      decoded = atob(piece.slice(0, whole));
    } else {
      carry = ''; // it was part of `piece`
    }
    bytes += decoded.length;
    const found = scan(open + decoded, false);
    pages += found.pages;
    open = found.open;
  }
  const padding = eq >= 0 ? base64.slice(eq).replace(BASE64_SPACES, '').length : 0;
  // As atob: `=` only where it completes a group, and never a lone character left over (every chunk decoded
  // whole groups, so what is left over is `carry`).
  if ((padding > 0 && (carry.length + padding) % 4 !== 0) || carry.length === 1) return unreadable();
  const tail = carry === '' ? '' : atob(carry);
  bytes += tail.length;
  pages += scan(open + tail, true).pages;
  return pages > 0 ? pages : Math.max(1, Math.ceil(bytes / FALLBACK_BYTES_PER_PAGE));
}

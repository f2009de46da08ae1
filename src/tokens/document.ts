/**
 * What a `document` block costs. Only the text sources are text the model reads; a base64 PDF is read as pages
 * (each page's extracted text plus an image of it), and url and file sources are fetched by the API, so their
 * bytes are not here to count. Counting the block's JSON instead made a 1 MB PDF ~950,000 tokens.
 */

/**
 * Text tokens one PDF page costs. Anthropic, "PDF support", Estimate your costs
 * (https://platform.claude.com/docs/en/build-with-claude/pdf-support, read 2026-12-01): "Each page typically uses
 * 1,500-3,000 tokens per page depending on content density", plus the page's image at the vision cost. A page
 * counts the low end of that range plus counter.ts's image figure: the thresholds need the order of magnitude, and
 * calibration from reported usage corrects the rest.
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

/** A page object (`/Type /Page`, not the `/Type /Pages` tree nodes). */
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z0-9])/g;

/**
 * Pages of a base64 PDF: its page objects counted in the decoded bytes, else (none visible, or not base64) the
 * decoded size at {@link FALLBACK_BYTES_PER_PAGE}, at least one. An incremental update that rewrites a page counts
 * it twice: an overestimate, the safe side for window checks.
 */
export function pdfPages(base64: string): number {
  let bytes: string;
  try {
    bytes = atob(base64);
  } catch {
    return Math.max(1, Math.ceil((base64.length * 3) / 4 / FALLBACK_BYTES_PER_PAGE));
  }
  const pages = bytes.match(PAGE_OBJECT)?.length ?? 0;
  return pages > 0 ? pages : Math.max(1, Math.ceil(bytes.length / FALLBACK_BYTES_PER_PAGE));
}

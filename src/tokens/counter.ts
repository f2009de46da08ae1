/**
 * Token counting. The default counter is `cl100k_base` (the rank table that
 * js-tiktoken ships): Claude's tokenizer is not published, and cl100k is the
 * closest widely available BPE (within ~10–20% on English and code;
 * calibration from reported usage corrects the rest, see calibration.ts). It
 * is counted by bpe.ts (same counts as js-tiktoken, built on the first count,
 * no Node built-ins). Counts are memoized per block object: the timeline is
 * immutable and structurally shared, so after appending a round only the new
 * blocks are counted.
 */
import { cl100kCount, cl100kEstimate } from './bpe.js';
import { decodeTextDocument, documentBytesKind, officeDocumentTokens, PDF_PAGE_TEXT_TOKENS, pdfPages, UNSEEN_DOCUMENT_PAGES } from './document.js';

/** Counts tokens of a text. Implementations must be pure (same text → same count). */
export interface TokenCounter {
  /** A name for reports, e.g. `tiktoken:cl100k_base`. */
  readonly name: string;
  count(text: string): number;
  /**
   * A cheaper count of a long text, within a few percent of `count` (the
   * render path uses it above {@link HUGE_TEXT} characters). Must be
   * deterministic. Without it, long texts are estimated from three samples.
   */
  estimate?(text: string): number;
}

/**
 * The default counter: `cl100k_base`, its rank table built on the first count.
 * `estimate` samples long texts (within ±2 % of the exact count on code, JSON,
 * logs, prose, base64, CJK and mixes of them; see test/tokens).
 *
 * @example
 * tiktokenCounter().count('hello world'); // 2
 */
export function tiktokenCounter(): TokenCounter {
  return { name: 'tiktoken:cl100k_base', count: cl100kCount, estimate: cl100kEstimate };
}

/** A fast approximate counter (characters / 4), for tests and huge inputs. */
export function charCounter(charsPerToken = 4): TokenCounter {
  return { name: `chars/${charsPerToken}`, count: (text) => Math.ceil(text.length / charsPerToken) };
}

/** Fixed cost of an image block (Anthropic: about width×height/750; ~1,600 for a typical screenshot). */
const IMAGE_TOKENS = 1600;
/** Above this many characters a payload's tokens are estimated (exact BPE would cost more than a render). */
export const HUGE_TEXT = 4_000;
const SAMPLE = 1_000;
/** Texts at least this long are memoized by text too (shorter ones count faster than they hash and compare). */
const TEXT_MEMO_MIN = 256;
/** At most this many characters of text are held by the memo by text (the strings are usually the timeline's own). */
const TEXT_MEMO_CHARS = 8_000_000;
/** Per-block framing (role markers, block delimiters) the tokenizer adds. */
const BLOCK_OVERHEAD = 3;

/** The text a content block, tool definition or system block contributes to the prompt. */
export function blockText(block: unknown): { text: string; extra: number } {
  if (typeof block === 'string') return { text: block, extra: 0 };
  if (block === null || typeof block !== 'object') return { text: '', extra: 0 };
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return { text: String(b.text ?? ''), extra: 0 };
    case 'thinking':
      return { text: String(b.thinking ?? ''), extra: 0 };
    case 'redacted_thinking':
      return { text: String(b.data ?? ''), extra: 0 };
    case 'tool_use':
      return { text: `${String(b.name)} ${JSON.stringify(b.input ?? {})}`, extra: 0 };
    case 'tool_result': {
      const c = b.content;
      if (typeof c === 'string' || c === undefined) return { text: c ?? '', extra: 0 };
      let text = '';
      let extra = 0;
      for (const part of c as unknown[]) {
        const inner = blockText(part);
        text += inner.text;
        extra += inner.extra;
      }
      return { text, extra };
    }
    case 'image':
      return { text: '', extra: IMAGE_TOKENS };
    case 'document':
      return documentText(b);
    default:
      // Tool definitions (no `type`, or custom types) and anything else: its JSON form.
      return { text: JSON.stringify(b), extra: 0 };
  }
}

/**
 * A document block: text sources by their text, content sources by their parts, base64 bytes by their kind (a PDF by
 * its pages, a text-like file by its decoded text, an Office file by its size), url and file sources by an estimate
 * (see document.ts); title and context are text the model reads too.
 */
function documentText(b: Record<string, unknown>): { text: string; extra: number } {
  const source = (b.source ?? {}) as Record<string, unknown>;
  const heading = [b.title, b.context].filter((s): s is string => typeof s === 'string' && s !== '').join('\n');
  const withHeading = (text: string, extra: number) => ({ text: heading === '' ? text : text === '' ? heading : `${heading}\n${text}`, extra });
  const perPage = PDF_PAGE_TEXT_TOKENS + IMAGE_TOKENS;
  switch (source.type) {
    case 'text':
      return withHeading(String(source.data ?? ''), 0);
    case 'content': {
      // A string or text and image blocks, counted as a tool result's content is.
      const c = source.content;
      const parts = blockText({ type: 'tool_result', content: typeof c === 'string' || Array.isArray(c) ? c : undefined });
      return withHeading(parts.text, parts.extra);
    }
    case 'base64': {
      const data = String(source.data ?? '');
      switch (documentBytesKind(source.media_type)) {
        case 'text':
          // Not base64: its characters, an estimate that never throws.
          return withHeading(decodeTextDocument(data) ?? data, 0);
        case 'office':
          return withHeading('', officeDocumentTokens(data));
        default:
          return withHeading('', pdfPages(data) * perPage);
      }
    }
    default:
      // url, file and sources we do not know: the bytes are not here (estimate).
      return withHeading('', UNSEEN_DOCUMENT_PAGES * perPage);
  }
}

/**
 * Memoizes a counter per block object. Because timeline blocks are frozen and
 * shared between states, a WeakMap keyed by the block is exact and lets old
 * states be garbage-collected.
 */
export class BlockTokenCache {
  readonly #counter: TokenCounter;
  readonly #memo = new WeakMap<object, number>();
  /**
   * Counts by text, for payloads that come back as new blocks with the same
   * text (a re-read of an unchanged file, a command run again): a lookup
   * instead of a count. Bounded by the characters it holds; emptied when full.
   */
  readonly #texts = new Map<string, number>();
  #textChars = 0;
  #counted = 0;

  constructor(counter: TokenCounter = tiktokenCounter()) {
    this.#counter = counter;
  }

  get counter(): TokenCounter {
    return this.#counter;
  }

  /** How many blocks were actually tokenized (not served from the memo). */
  get counted(): number {
    return this.#counted;
  }

  /** Tokens of one block (memoized when the block is an object). */
  tokens(block: unknown): number {
    if (block === null || typeof block !== 'object') return this.#compute(block);
    const hit = this.#memo.get(block);
    if (hit !== undefined) return hit;
    const n = this.#compute(block);
    this.#memo.set(block, n);
    return n;
  }

  #compute(block: unknown): number {
    this.#counted++;
    const { text, extra } = blockText(block);
    return this.#count(text) + extra + BLOCK_OVERHEAD;
  }

  /**
   * Huge payloads (a fetched page, a 800k-character log) are estimated: by
   * the counter's own `estimate` when it has one, else from three samples
   * scaled by length: BPE on them costs tens of milliseconds and
   * the thresholds need a few percent of accuracy, not the exact figure
   * (calibration corrects the rest). Deterministic like the exact count.
   */
  #count(text: string): number {
    if (text.length < TEXT_MEMO_MIN) return this.#fresh(text);
    const hit = this.#texts.get(text);
    if (hit !== undefined) return hit;
    const n = this.#fresh(text);
    if (this.#textChars + text.length > TEXT_MEMO_CHARS) {
      this.#texts.clear();
      this.#textChars = 0;
    }
    this.#texts.set(text, n);
    this.#textChars += text.length;
    return n;
  }

  #fresh(text: string): number {
    return engineTextTokens(this.#counter, text);
  }
}

/**
 * A text's tokens as the engine counts them ({@link BlockTokenCache}, without its memo): exact up to
 * {@link HUGE_TEXT} characters, above it the counter's own estimate, else three samples scaled by length.
 *
 * @example
 * engineTextTokens(tiktokenCounter(), 'hello world'); // 2
 */
export function engineTextTokens(counter: TokenCounter, text: string): number {
  if (text.length <= HUGE_TEXT) return counter.count(text);
  if (counter.estimate) return counter.estimate(text);
  const n = SAMPLE;
  const mid = Math.floor(text.length / 2 - n / 2);
  const sampled = counter.count(text.slice(0, n)) + counter.count(text.slice(mid, mid + n)) + counter.count(text.slice(-n));
  return Math.ceil((sampled / (3 * n)) * text.length);
}

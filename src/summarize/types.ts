/**
 * The summarizer contract. Compaction (the hard ceiling) turns an older stretch
 * of whole turns into one summary block; what writes that summary is
 * pluggable: a deterministic extractive summarizer (no network, synchronous)
 * and an LLM summarizer (async, falls back to the extractive one).
 */
import type { MessageCreateParamsNonStreaming } from '../providers/anthropic-types.js';
import type { Summary, Turn } from '../timeline/types.js';

/** What to summarize. */
export interface SummaryInput {
  readonly fromTurn: number;
  readonly toTurn: number;
  /** The whole turns to summarize (full blocks, hidden ones included), oldest first. */
  readonly turns: readonly Turn[];
  /** The latest earlier summary, for context. */
  readonly previous?: Summary;
  /** The summary body should stay under this many tokens. */
  readonly maxTokens: number;
  /**
   * For cheap compaction: the last request sent, cut after its last cache
   * marker (see {@link cutToWarmPrefix}), markers kept. The LLM summarizer
   * sends exactly these bytes plus its instruction, so the history is read
   * from the cache instead of being re-sent.
   */
  readonly warmPrefix?: MessageCreateParamsNonStreaming;
}

/** The provider-reported usage of a summarizer call. */
export interface SummaryUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly output_tokens: number;
}

/** A summary and what it cost. */
export interface SummaryOutput {
  readonly text: string;
  /** Which summarizer wrote `text`, e.g. `extractive` or `llm:claude-haiku-4-5`. */
  readonly by: string;
  /** Usage of the model call (also present when that call's answer was unusable and the fallback wrote `text`). */
  readonly usage?: SummaryUsage;
  /** Dollars, priced from the model profile; reported apart from the session's own requests. */
  readonly cost?: number;
  /** Why the fallback wrote `text` (error, timeout, empty answer). Absent when the chosen summarizer did. */
  readonly fallback?: string;
  /** How the LLM summarizer sent the history: read from the cached prefix, or as a compact transcript. */
  readonly mode?: 'warm' | 'transcript';
}

/**
 * Writes summaries. `summarize` may return a plain value (synchronous
 * summarizers, usable inside the synchronous render) or a promise.
 */
export interface Summarizer {
  readonly name: string;
  summarize(input: SummaryInput, signal?: AbortSignal): SummaryOutput | Promise<SummaryOutput>;
}

/** A summarizer that answers synchronously (usable inside the synchronous render). */
export interface SyncSummarizer extends Summarizer {
  summarize(input: SummaryInput, signal?: AbortSignal): SummaryOutput;
}

/** A summarizer that always answers with a promise (a model call). */
export interface AsyncSummarizer extends Summarizer {
  summarize(input: SummaryInput, signal?: AbortSignal): Promise<SummaryOutput>;
}

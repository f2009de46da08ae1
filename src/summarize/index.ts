/** Summarizers for compaction. */
export { extractiveSummarizer, type ExtractiveOptions } from './extractive.js';
export { llmSummarizer, priceUsage, summarizeInstruction, type LlmSummarizerOptions } from './llm.js';
export { cutToWarmPrefix } from './warm-prefix.js';
export type { Summarizer, SummaryInput, SummaryOutput, SummaryUsage } from './types.js';

/** Summarizers for compaction. */
export { extractiveSummarizer, type ExtractiveOptions } from './extractive.js';
export { llmSummarizer, summarizeInstruction, type LlmSummarizerOptions } from './llm.js';
export { cutToWarmPrefix } from './warm-prefix.js';
export type { AsyncSummarizer, Summarizer, SummaryInput, SummaryOutput, SummaryUsage, SyncSummarizer } from './types.js';

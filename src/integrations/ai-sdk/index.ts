/**
 * `cachepoint/ai-sdk`: cachepoint for the Vercel AI SDK. Needs the optional
 * peers `ai` (7.x) and, for the model, `@ai-sdk/anthropic` (or the AI SDK's
 * Bedrock / Vertex Anthropic providers).
 */
export { cachepointMiddleware, isAnthropicProvider } from './middleware.js';
export type {
  CachepointCallOptions,
  CachepointMiddlewareOptions,
  CachepointPlanEvent,
  CachepointWarning,
  CachepointWarningCode,
  TailContext,
} from './middleware.js';
export { createRecallTool } from './recall.js';
export type { RecallToolOptions } from './recall.js';
export { fromAnthropicPrompt } from './from-anthropic.js';
export { toAnthropicPrompt, UnmappablePromptError } from './to-anthropic.js';
export type { AnthropicPrompt } from './to-anthropic.js';
export { reportedUsage } from './usage.js';
export type { AnthropicUsage } from './usage.js';

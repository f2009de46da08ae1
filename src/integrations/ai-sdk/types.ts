/**
 * The AI SDK's language-model types, derived from what `wrapLanguageModel`
 * takes, so this entry needs nothing of `ai` at runtime, no direct import of
 * `@ai-sdk/provider`, and the same source serves every supported major: ai 5
 * (`LanguageModelV2Middleware`), 6 (`V3`) and 7 (`V4`) each give their own
 * shapes here. (`wrapLanguageModel`, not the `LanguageModelMiddleware` alias:
 * ai 5.0.0 does not export that alias.)
 */
import type { wrapLanguageModel } from 'ai';

/** The middleware type of the installed `ai` (what `wrapLanguageModel({ middleware })` accepts, one of them). */
export type LanguageModelMiddleware = Exclude<Parameters<typeof wrapLanguageModel>[0]['middleware'], readonly unknown[]>;

/** What `transformParams` receives. */
export type TransformArgs = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0];
/** The call options of a language-model call (`LanguageModelV4CallOptions` on ai 7, `V3` on ai 6, `V2` on ai 5). */
export type CallOptions = TransformArgs['params'];
/** The model a middleware wraps (`LanguageModelV4`). */
export type WrappedModel = TransformArgs['model'];
/** The standardized prompt (`LanguageModelV4Prompt`). */
export type Prompt = CallOptions['prompt'];
export type PromptMessage = Prompt[number];
export type SystemMessage = Extract<PromptMessage, { role: 'system' }>;
export type UserMessage = Extract<PromptMessage, { role: 'user' }>;
export type AssistantMessage = Extract<PromptMessage, { role: 'assistant' }>;
export type ToolMessage = Extract<PromptMessage, { role: 'tool' }>;
export type UserPart = UserMessage['content'][number];
export type AssistantPart = AssistantMessage['content'][number];
export type ToolCallPart = Extract<AssistantPart, { type: 'tool-call' }>;
export type ReasoningPart = Extract<AssistantPart, { type: 'reasoning' }>;
export type ToolResultPart = Extract<ToolMessage['content'][number], { type: 'tool-result' }>;
export type ToolResultOutput = ToolResultPart['output'];
/** A tool of the call (`LanguageModelV4FunctionTool | LanguageModelV4ProviderTool`). */
export type CallTool = NonNullable<CallOptions['tools']>[number];
export type FunctionTool = Extract<CallTool, { type: 'function' }>;
/** `providerOptions` of a call, message, part or tool. */
export type ProviderOptions = NonNullable<CallOptions['providerOptions']>;

type GenerateArgs = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0];
/** What `doGenerate` resolves to (`LanguageModelV4GenerateResult`). */
export type GenerateResult = Awaited<ReturnType<GenerateArgs['doGenerate']>>;
/** What `doStream` resolves to (`LanguageModelV4StreamResult`). */
export type StreamResult = Awaited<ReturnType<GenerateArgs['doStream']>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
/** A call warning as the AI SDK reports it (`SharedV4Warning`). */
export type CallWarning = GenerateResult['warnings'][number];

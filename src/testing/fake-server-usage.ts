/**
 * Usage for the fake Messages API server. The server asks a pluggable
 * {@link UsageModel} what a request costs; the provider cache simulator is the
 * model that answers with real cache reads and writes. The token counting here
 * (per-block counts in render order) is shared by `count_tokens`, the
 * diagnostics' `cache_missed_input_tokens` and the no-cache model.
 */
import type { MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { contentBlocks, withoutMarker } from '../internal/blocks.js';
import { BlockTokenCache } from '../tokens/counter.js';
import type { PromptUsage } from '../models/pricing.js';

// TYPES

/** The usage fields a model reports for one request (the API's `usage`, input side). */
export type UsageReport = PromptUsage;

/** What a usage model answers for a request it accepts: the usage, and optionally why cache reads were missed. */
export interface UsageOutcome {
  readonly rejected?: null;
  readonly usage: UsageReport;
  /** A machine-readable explanation (e.g. the simulator's plan and cause of a miss); recorded, never sent. */
  readonly explain?: unknown;
}

/** A usage model may refuse a request the server's own checks let through; the server answers 400 with this message. */
export interface UsageRejection {
  readonly rejected: { readonly message: string };
  readonly usage?: null;
}

/**
 * Decides the `usage` of a request. Stateful models (the cache simulator)
 * remember earlier requests; `atMs` is the fake server's clock at the request's
 * start, which is when the provider's TTL starts counting. The shape matches
 * `CacheSimulator.send`, so a simulator instance is a usage model as it is.
 */
export interface UsageModel {
  send(params: MessageCreateParamsBase, atMs: number): UsageOutcome | UsageRejection;
}

/** Counts the tokens of a request's prompt, in render order (tools → system → messages). */
export interface PromptTokens {
  readonly tools: number;
  readonly system: number;
  /** One entry per message content block, in order (a string content counts as one text block). */
  readonly blocks: readonly number[];
  readonly total: number;
}

// IMPLEMENTATION

/** Content of a message as a list of blocks (a string is one text block). */
export const messageBlocks = contentBlocks;

/** Per-part token counts of a request's prompt (cache markers excluded). */
export function promptTokens(params: Pick<MessageCreateParamsBase, 'tools' | 'system' | 'messages'>, tokens: BlockTokenCache): PromptTokens {
  const count = (x: unknown): number => tokens.tokens(withoutMarker(x));
  const sum = (xs: readonly unknown[]): number => xs.reduce<number>((n, x) => n + count(x), 0);
  const tools = sum(params.tools ?? []);
  const system = typeof params.system === 'string' ? count(params.system) : sum(params.system ?? []);
  const blocks = params.messages.flatMap((m) => messageBlocks(m.content).map(count));
  return { tools, system, blocks, total: tools + system + blocks.reduce((a, b) => a + b, 0) };
}

/**
 * A usage model without a prompt cache: every prompt token is billed as input.
 * The fallback when no cache simulator is given.
 *
 * @example
 * const model = noCacheUsageModel();
 * model.send({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }, 0).usage.input_tokens;
 */
export function noCacheUsageModel(tokens: BlockTokenCache = new BlockTokenCache()): UsageModel {
  return {
    send(params) {
      return {
        usage: {
          input_tokens: promptTokens(params, tokens).total,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        },
      };
    },
  };
}

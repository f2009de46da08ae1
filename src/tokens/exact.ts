/**
 * The exact counter: asks the provider (`client.messages.countTokens`, the
 * `POST /v1/messages/count_tokens` endpoint) how many input tokens a request
 * has. It is asynchronous and costs a network round trip, so the renderer never
 * uses it: render counts locally (js-tiktoken, memoized per block) and only
 * this counter, when a caller chooses it, waits on the network. Its use is
 * calibration — measuring how far the local estimate is off for a model
 * before (or without) spending a real request on it.
 */
import type { CountTokensClient, MessageCountTokensParams, MessageCreateParamsBase, MessageTokensCount } from '../providers/anthropic-types.js';
import type { Calibration } from './calibration.js';

/** A request to count: create params (extra fields such as `max_tokens` are dropped) or count params; `model` defaults to the counter's. */
export type CountableRequest = Partial<Pick<MessageCountTokensParams, 'model'>> &
  Pick<MessageCreateParamsBase, 'messages'> &
  Partial<Pick<MessageCountTokensParams, 'system' | 'tools' | 'tool_choice' | 'thinking' | 'output_config'>>;

/** Options of {@link exactCounter}. */
export interface ExactCounterOptions {
  /** Any `@anthropic-ai/sdk` version's client, or anything with `messages.countTokens`. */
  readonly client: CountTokensClient;
  /** The model whose tokenizer counts. */
  readonly model: string;
}

/** Counts with the provider's own tokenizer (async; network). */
export interface ExactCounter {
  /** For reports, e.g. `anthropic:count_tokens:claude-sonnet-4-6`. */
  readonly name: string;
  readonly model: string;
  /** Input tokens of a whole request, as the provider would bill them uncached. */
  countRequest(request: CountableRequest, signal?: AbortSignal): Promise<number>;
  /** Input tokens of one user message holding `text` (includes the few tokens of message framing). */
  countText(text: string, signal?: AbortSignal): Promise<number>;
  /**
   * Counts `request` exactly and feeds the result to `calibration` against the
   * local count of the same request.
   *
   * @returns the exact count
   */
  calibrate(calibration: Calibration, request: CountableRequest, localCount: number, signal?: AbortSignal): Promise<number>;
}

/** Only the fields count_tokens accepts: it rejects create-only fields such as `max_tokens` or `stream`. */
function countParams(request: CountableRequest, model: string): MessageCountTokensParams {
  const { system, tools, tool_choice, thinking, output_config } = request;
  return {
    model: request.model ?? model,
    messages: request.messages,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
    ...(tool_choice === undefined ? {} : { tool_choice }),
    ...(thinking === undefined ? {} : { thinking }),
    ...(output_config === undefined ? {} : { output_config }),
  };
}

/**
 * The exact counter for one model. Errors are the SDK's (`APIError` and its
 * subclasses): counting is a caller's explicit choice, so it is theirs to handle.
 *
 * @example
 * const exact = exactCounter({ client: new Anthropic(), model: 'claude-sonnet-4-6' });
 * const params = toAnthropic(render(state));
 * await exact.calibrate(calibration, params, r.tokens.total);
 */
export function exactCounter(options: ExactCounterOptions): ExactCounter {
  const { client, model } = options;
  const countRequest = async (request: CountableRequest, signal?: AbortSignal): Promise<number> => {
    const r = (await client.messages.countTokens(countParams(request, model) as never, (signal ? { signal } : undefined) as never)) as MessageTokensCount;
    return r.input_tokens;
  };
  return {
    name: `anthropic:count_tokens:${model}`,
    model,
    countRequest,
    countText: (text, signal) => countRequest({ messages: [{ role: 'user', content: text }] }, signal),
    async calibrate(calibration, request, localCount, signal) {
      const exact = await countRequest(request, signal);
      calibration.observe(request.model ?? model, localCount, { input_tokens: exact });
      return exact;
    },
  };
}

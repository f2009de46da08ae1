/**
 * What `Session` needs of a client, structurally: `messages.create` and, to
 * stream, `messages.stream`. Any `@anthropic-ai/sdk` version's `Anthropic`,
 * `AnthropicBedrock` and `AnthropicVertex` fit (no `#private` class identity
 * is involved), and so does your own wrapper.
 */
import type { Message, MessageCreateParamsNonStreaming } from '../providers/anthropic-types.js';

// TYPES

/** A streamed event as the SDK yields it (`MessageStreamEvent` of any version). */
export interface StreamEventLike {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** What `messages.stream(...)` returns (the SDK's `MessageStream`): its events, then the final message. */
export interface MessageStreamLike extends AsyncIterable<unknown> {
  finalMessage(): PromiseLike<unknown>;
  abort?(): void;
}

/**
 * Any Anthropic Messages client. The parameter types are `never` on purpose:
 * every SDK version's method signature is assignable, whatever its own param types.
 */
export interface MessagesClient {
  readonly messages: {
    create(params: never, options?: never): PromiseLike<unknown>;
    stream?(params: never, options?: never): MessageStreamLike;
  };
}

/**
 * The message a client's `messages.create` resolves to: that SDK version's own
 * `Message` (so `session.step(client)` hands back what the rest of your code,
 * typed with that SDK, expects), or cachepoint's {@link Message} when the client
 * does not say (`unknown`, `any`).
 */
export type MessageOf<C> = 0 extends 1 & C
  ? Message
  : C extends { readonly messages: { create(...args: never): PromiseLike<infer R> } }
    ? 0 extends 1 & R
      ? Message
      : [Extract<R, { readonly type: 'message' }>] extends [never]
        ? Message
        : Extract<R, { readonly type: 'message' }>
    : Message;

/** Per-call request options the SDKs accept (`signal` cancels the request). */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

// IMPLEMENTATION

/** The SDK's request options for a call: the signal and the headers the profile needs (`anthropic-beta`); none when neither. */
function requestArgs(params: MessageCreateParamsNonStreaming, options: CallOptions, headers: Readonly<Record<string, string>>): [never, never?] {
  const hasHeaders = Object.keys(headers).length > 0;
  if (!options.signal && !hasHeaders) return [params] as unknown as [never];
  return [params, { ...(options.signal ? { signal: options.signal } : {}), ...(hasHeaders ? { headers } : {}) }] as unknown as [never, never];
}

export function callCreate<M>(
  client: MessagesClient,
  params: MessageCreateParamsNonStreaming,
  options: CallOptions,
  headers: Readonly<Record<string, string>> = {},
): Promise<M> {
  return Promise.resolve(client.messages.create(...requestArgs(params, options, headers))) as Promise<M>;
}

export function callStream(
  client: MessagesClient,
  params: MessageCreateParamsNonStreaming,
  options: CallOptions,
  headers: Readonly<Record<string, string>> = {},
): MessageStreamLike {
  const stream = client.messages.stream;
  if (typeof stream !== 'function')
    throw new TypeError(
      'this client has no messages.stream(): pass an @anthropic-ai/sdk client (Anthropic, AnthropicBedrock, AnthropicVertex) or stream: false',
    );
  return stream.apply(client.messages, requestArgs(params, options, headers));
}

/**
 * What `Session` needs of a client, structurally: `messages.create` and, to
 * stream, `messages.stream`. Any `@anthropic-ai/sdk` version's `Anthropic`,
 * `AnthropicBedrock` and `AnthropicVertex` fit (no `#private` class identity
 * is involved), and so does your own wrapper.
 */
import { InvalidOptionError } from '../errors.js';
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
  return client.messages.stream!.apply(client.messages, requestArgs(params, options, headers));
}

/**
 * Refuses a client that cannot send what the session asks (checked before anything is rendered or sent): no
 * `messages.create` (an OpenAI client, an AI SDK model), or, to stream, no `messages.stream`.
 *
 * @throws {InvalidOptionError} `client`, with what to pass instead
 */
export function assertClient(client: unknown, stream: boolean): asserts client is MessagesClient {
  const messages = (client as { messages?: { create?: unknown; stream?: unknown } } | null | undefined)?.messages;
  if (typeof messages?.create !== 'function') {
    const openai = typeof (client as { chat?: { completions?: unknown } } | null | undefined)?.chat?.completions === 'object';
    throw new InvalidOptionError(
      'client',
      `expected an Anthropic Messages client (Anthropic, AnthropicBedrock, AnthropicVertex of @anthropic-ai/sdk, or any object with messages.create)${
        openai
          ? '; this is an OpenAI client: render with profile: OPENAI_MODELS[id] and map with toOpenAIResponses / toOpenAIChat, or wrap @ai-sdk/openai with cachepointMiddleware (docs/providers.md)'
          : ''
      }`,
      { value: client, expected: 'an object with messages.create' },
    );
  }
  if (stream && typeof messages.stream !== 'function') {
    throw new InvalidOptionError(
      'client',
      'this client has no messages.stream(): pass an @anthropic-ai/sdk client (Anthropic, AnthropicBedrock, AnthropicVertex) or stream: false',
      { value: client, expected: 'an object with messages.stream' },
    );
  }
}

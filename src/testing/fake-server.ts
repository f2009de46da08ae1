/**
 * A fake Anthropic Messages API on loopback HTTP, for end-to-end tests with
 * the real SDK (`new Anthropic({ baseURL: server.url, apiKey: 'test' })`).
 *
 * - `POST /v1/messages`: validates the request as the API does (400
 *   `invalid_request_error` with the API's wording, see
 *   fake-server-validate.ts), plays back the next scripted response, reports
 *   `usage` from a pluggable usage model (the provider cache simulator, so a
 *   test can assert cache reads), answers `diagnostics` (cache miss reasons)
 *   and streams SSE when `stream: true`.
 * - `POST /v1/messages/count_tokens`: `{ input_tokens }` from the same counting.
 * - `POST /v1/responses`, `POST /v1/chat/completions` (OpenAI) and
 *   `POST /model/{modelId}/converse` (Bedrock; `…/converse-stream` streams it
 *   in AWS's event-stream framing): the same script, each provider's
 *   validation, response shape, usage fields and cache rules
 *   (fake-server-openai.ts), so the `openai` SDK and the AWS SDK run against it.
 * - preserved thinking: on models that bind thinking to its prefix, thinking
 *   blocks are signed with a digest of their prefix and checked when they come
 *   back (400 "… bound to a different conversation …", or `drop_block`), see
 *   fake-server-binding.ts.
 * - thinking in an open tool loop: the thinking blocks of the response a
 *   request's tool results answer must come back as the server produced them
 *   (400 "… cannot be modified …"; `loopThinking: 'strict'` also refuses them
 *   left out), see fake-server-loop.ts; manual thinking's "must start with a
 *   thinking block" is in fake-server-validate.ts.
 * - `POST /model/{modelId}/invoke` (`…/invoke-with-response-stream`: AWS
 *   event-stream `chunk` events) and `…/publishers/anthropic/models/{model}:rawPredict`
 *   (`:streamRawPredict`): Claude on Bedrock and on Vertex AI, the Messages
 *   route under the cloud's envelope (fake-server-clouds.ts), so
 *   `AnthropicBedrock` and `AnthropicVertex` run against it by `baseURL`.
 * - anything else: 404 `not_found_error`.
 *
 * Every request is recorded (`server.requests`) with its parsed body and the
 * response or error it got. Ids are deterministic (`msg_fake_1`, `req_fake_1`).
 *
 * This file routes and records; the HTTP plumbing is fake-server-http.ts, the
 * message (script, usage, diagnostics) fake-server-messages.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Message, MessageCreateParamsBase, MessageTokensCount } from '../providers/anthropic-types.js';
import { CacheSimulator } from '../sim/simulator.js';
import { BlockTokenCache, type TokenCounter } from '../tokens/counter.js';
import { OPENAI_MODELS } from '../providers/openai-profile.js';
import {
  HttpError,
  listen,
  parseJson,
  readBody,
  sendBedrockError,
  sendError,
  sendEventStream,
  sendEvents,
  sendJson,
  sendOpenAIError,
} from './fake-server-http.js';
import { bindResponse, checkBinding } from './fake-server-binding.js';
import { bedrockChunks, cloudParams, cloudRoute } from './fake-server-clouds.js';
import { LoopThinkingLedger, type LoopThinking, type LoopThinkingRule } from './fake-server-loop.js';
import { ProviderRoutes } from './fake-server-openai.js';
import { MessageResponder } from './fake-server-messages.js';
import type { ScriptEntry } from './fake-server-script.js';
import { formatFrame, messageFrames } from './fake-server-sse.js';
import { promptTokens, type UsageModel } from './fake-server-usage.js';
import { contextWindowIssue, validateRequest } from './fake-server-validate.js';

// TYPES

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions {
  /** Responses to play back, one per model request, in order. More can be added with `server.script(...)`. */
  readonly script?: readonly ScriptEntry[];
  /**
   * Decides `usage`. Default: a fresh `CacheSimulator` (the provider cache simulator with the
   * built-in model profiles), so cache reads and writes show up as the API would report them;
   * an unknown model then answers 404, as the API does. Pass `noCacheUsageModel()` to accept
   * any model name and bill everything as input, or your own simulator to inspect its entries.
   */
  readonly usageModel?: UsageModel;
  /** Usage for the OpenAI routes. Default: a simulator with OpenAI's model profiles and cache rules. */
  readonly openaiUsageModel?: UsageModel;
  /** Usage for the Converse route. Default: a simulator with Claude's profiles (Bedrock ids resolve to them). */
  readonly bedrockUsageModel?: UsageModel;
  /** The clock (ms) the usage model sees; inject one to step past TTLs without waiting. Default `Date.now`. */
  readonly now?: () => number;
  /** Token counter for count_tokens, output estimates and diagnostics. Default: tiktoken cl100k. */
  readonly counter?: TokenCounter;
  /**
   * The context window the Messages route checks (a longer prompt is the API's 400 `prompt is too long`).
   * Default: the model's profile's (see `contextWindowIssue`). Set it to test a small window with a custom profile.
   */
  readonly contextWindow?: number;
  /** Port to listen on (default 0: any free port). The host is always 127.0.0.1. */
  readonly port?: number;
  /**
   * Thinking left out of an open tool loop (fake-server-loop.ts): `lenient` (default) accepts it from the end or all
   * of it, as adaptive thinking does; `strict` refuses it, as the thinking-tool-workflows page states the rule.
   * Altered or reordered thinking is refused either way.
   */
  readonly loopThinking?: LoopThinkingRule;
}

/** An API error as the server answered it. */
export interface RecordedError {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

/** One request the server received, and what it answered. */
export interface RecordedRequest {
  /** 0-based arrival order over all requests (`requests` is in completion order). */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  /** The server clock when the request arrived. */
  readonly at: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (`undefined` when there was none or it was not JSON). */
  readonly body: unknown;
  readonly stream: boolean;
  readonly status: number;
  readonly requestId: string;
  /** The message or token count sent back (for streams: the message the events add up to). */
  readonly response?: Message | MessageTokensCount;
  readonly error?: RecordedError;
  /** What the usage model said about the request (e.g. the simulator's explanation of a miss). */
  readonly explain?: unknown;
  /** What the request did with the thinking of the response its tool results answer (Messages and Converse; absent: no such loop). */
  readonly loopThinking?: LoopThinking;
}

/** A running fake server. */
export interface FakeMessagesServer {
  /** Base URL for the SDK's `baseURL`, e.g. `http://127.0.0.1:53111`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** How many scripted responses are still queued. */
  readonly remaining: number;
  /** The usage model in use (the default simulator, or the one given). */
  readonly usageModel: UsageModel;
  /** Appends responses to the script. */
  script(...entries: readonly ScriptEntry[]): void;
  /** Stops listening and drops open (keep-alive) connections. */
  close(): Promise<void>;
}

// IMPLEMENTATION

type Endpoint = 'messages' | 'count_tokens' | 'responses' | 'chat' | 'converse' | 'converse-stream' | 'cloud';

/** Bedrock's Converse paths: `/model/{modelId}/converse` and `…/converse-stream` (the id URL-encoded). */
const CONVERSE = /^\/model\/([^/]+)\/converse(-stream)?$/;

/** The endpoint a request is for; anything else is the API's 404. */
function route(method: string, path: string): Endpoint {
  if (method === 'POST' && path === '/v1/messages') return 'messages';
  if (method === 'POST' && path === '/v1/messages/count_tokens') return 'count_tokens';
  if (method === 'POST' && path === '/v1/responses') return 'responses';
  if (method === 'POST' && path === '/v1/chat/completions') return 'chat';
  const converse = method === 'POST' ? CONVERSE.exec(path) : null;
  if (converse) return converse[2] ? 'converse-stream' : 'converse';
  if (method === 'POST' && cloudRoute(path) !== undefined) return 'cloud';
  throw new HttpError(404, 'not_found_error', `Not found: ${method} ${path}`);
}

/**
 * Starts a fake Messages API server on 127.0.0.1.
 *
 * @example
 * const server = await startFakeServer({ script: [[{ type: 'text', text: 'Hi!' }]] });
 * const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
 * const msg = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
 * await server.close();
 */
export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeMessagesServer> {
  const tokens = new BlockTokenCache(options.counter);
  // The simulator counts marker-free blocks with the same cache, so usage adds up to count_tokens.
  const usageModel = options.usageModel ?? new CacheSimulator({ countTokens: (block) => tokens.tokens(block) });
  const responder = new MessageResponder(options.script ?? [], usageModel, tokens);
  const countTokens = (block: unknown): number => tokens.tokens(block);
  const routes = new ProviderRoutes(
    responder,
    options.openaiUsageModel ?? new CacheSimulator({ countTokens, profiles: OPENAI_MODELS }),
    options.bedrockUsageModel ?? new CacheSimulator({ countTokens }),
    tokens,
    options.loopThinking,
  );
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const loops = new LoopThinkingLedger();
  let received = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Counted on arrival (not from requests.length): concurrent requests must not share an id.
    const index = received++;
    const requestId = `req_fake_${index + 1}`;
    const at = now();
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = await readBody(req);
    let body: unknown;
    let stream = false;
    // Which API's error shape to answer with (known once the path is routed).
    let family: 'anthropic' | 'openai' | 'bedrock' = path.startsWith('/model/')
      ? 'bedrock'
      : path.startsWith('/v1/responses') || path.startsWith('/v1/chat/')
        ? 'openai'
        : 'anthropic';
    const base = { index, method, path, at, headers: { ...req.headers }, requestId };
    try {
      body = text.length > 0 ? parseJson(text) : undefined;
      stream = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
      const endpoint = route(method, path);
      if (endpoint === 'responses' || endpoint === 'chat' || endpoint === 'converse' || endpoint === 'converse-stream') {
        family = endpoint === 'responses' || endpoint === 'chat' ? 'openai' : 'bedrock';
        const answer =
          endpoint === 'responses'
            ? routes.responses(body, at)
            : endpoint === 'chat'
              ? routes.chat(body, at)
              : routes.converse(decodeURIComponent(CONVERSE.exec(path)?.[1] ?? ''), body, at, endpoint === 'converse-stream');
        requests.push({
          ...base,
          body,
          stream: answer.frames !== undefined || answer.eventStream !== undefined,
          status: 200,
          response: answer.body as Message,
          ...(answer.explain === undefined ? {} : { explain: answer.explain }),
          ...(answer.loopThinking === undefined ? {} : { loopThinking: answer.loopThinking }),
        });
        if (answer.frames) sendEvents(res, requestId, answer.frames);
        else if (answer.eventStream) sendEventStream(res, requestId, answer.eventStream);
        else sendJson(res, requestId, answer.body);
        return;
      }
      // Claude on Bedrock (InvokeModel) and Vertex (rawPredict): the Messages API's body under the cloud's envelope.
      const cloud = endpoint === 'cloud' ? cloudRoute(path) : undefined;
      const { params: input, beta } = cloud ? cloudParams(cloud, body, req.headers['anthropic-beta']) : { params: body, beta: req.headers['anthropic-beta'] };
      const kind = cloud === undefined ? endpoint : cloud.countTokens ? 'count_tokens' : 'messages';
      if (cloud) stream = cloud.stream;
      const issue = validateRequest(input, kind as 'messages' | 'count_tokens');
      if (issue !== null) throw new HttpError(400, 'invalid_request_error', issue.message);
      const params = input as MessageCreateParamsBase;
      if (kind === 'messages') {
        const tooLong = contextWindowIssue(params.model, beta, promptTokens(params, tokens).total, options.contextWindow);
        if (tooLong !== null) throw new HttpError(400, 'invalid_request_error', tooLong.message);
      }

      if (kind === 'count_tokens') {
        const response: MessageTokensCount = { input_tokens: promptTokens(params, tokens).total };
        requests.push({ ...base, body, stream: false, status: 200, response });
        sendJson(res, requestId, response);
        return;
      }

      // Preserved thinking (models that bind thinking to its prefix): refused, or dropped blocks listed.
      const dropped = checkBinding(params, beta);
      const loopThinking = loops.check(params, options.loopThinking ?? 'lenient');
      const created = responder.create(params, at);
      const explain = created.explain;
      let message = bindResponse(params, created.message);
      loops.remember(message);
      if (dropped.length > 0) message = { ...message, input_transformations: dropped } as Message;
      requests.push({
        ...base,
        body,
        stream,
        status: 200,
        response: message,
        ...(explain === undefined ? {} : { explain }),
        ...(loopThinking === undefined ? {} : { loopThinking }),
      });
      const frames = stream ? [...messageFrames(message)].map(formatFrame) : [];
      if (!stream) sendJson(res, requestId, message);
      else if (cloud?.cloud === 'bedrock') sendEventStream(res, requestId, bedrockChunks(frames));
      else sendEvents(res, requestId, frames);
    } catch (e) {
      const err = e instanceof HttpError ? e : new HttpError(500, 'api_error', `fake server failed: ${String(e)}`);
      requests.push({ ...base, body, stream, status: err.status, error: { status: err.status, type: err.type, message: err.message } });
      if (family === 'openai') sendOpenAIError(res, requestId, err);
      else if (family === 'bedrock') sendBedrockError(res, requestId, err);
      else sendError(res, requestId, err);
    }
  }

  const server = await listen(options.port ?? 0, handle);
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    requests,
    usageModel,
    get remaining() {
      return responder.remaining;
    },
    script(...entries) {
      responder.script(entries);
    },
    close: () => server.close(),
  };
}

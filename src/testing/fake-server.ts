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
 * - anything else: 404 `not_found_error`.
 *
 * Every request is recorded (`server.requests`) with its parsed body and the
 * response or error it got. Ids are deterministic (`msg_fake_1`, `req_fake_1`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, MessageCreateParamsBase, MessageTokensCount } from '@anthropic-ai/sdk/resources/messages';
import { UnknownModelError } from '../errors.js';
import { CacheSimulator } from '../sim/simulator.js';
import { BlockTokenCache, type TokenCounter } from '../tokens/counter.js';
import { diagnose, fingerprint, type Fingerprint } from './fake-server-diagnostics.js';
import { isScriptedError, materialize, type ScriptedError, type ScriptedResponse, type ScriptEntry } from './fake-server-script.js';
import { formatFrame, messageFrames } from './fake-server-sse.js';
import { promptTokens, type UsageModel } from './fake-server-usage.js';
import { validateRequest } from './fake-server-validate.js';

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
  /** The clock (ms) the usage model sees; inject one to step past TTLs without waiting. Default `Date.now`. */
  readonly now?: () => number;
  /** Token counter for count_tokens, output estimates and diagnostics. Default: tiktoken cl100k. */
  readonly counter?: TokenCounter;
  /** Port to listen on (default 0: any free port). The host is always 127.0.0.1. */
  readonly port?: number;
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

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'invalid_request_error', `There was an error parsing the body of your request: ${(e as Error).message}`);
  }
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
  const now = options.now ?? Date.now;
  const queue: ScriptEntry[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const fingerprints = new Map<string, Fingerprint>();
  let received = 0;
  let played = 0;
  let messages = 0;
  let toolIds = 0;

  function createMessage(params: MessageCreateParamsBase, at: number): { message: Message; explain?: unknown } {
    const wantsDiagnostics = params.diagnostics !== undefined && params.diagnostics !== null;
    const previousId = params.diagnostics?.previous_message_id;
    const prompt = promptTokens(params, tokens);
    const print = fingerprint(params, prompt);
    const diagnostics = typeof previousId === 'string' ? diagnose(fingerprints.get(previousId), print) : null;

    let response: Exclude<ScriptedResponse, ScriptedError> | undefined;
    if (params.max_tokens !== 0) {
      const entry = queue[0];
      if (entry === undefined) {
        throw new HttpError(
          500,
          'api_error',
          `fake server: the script is exhausted after ${played} response(s); add responses with server.script(...) or the script option`,
          { 'x-should-retry': 'false' },
        );
      }
      const answer = typeof entry === 'function' ? entry(params, played) : entry;
      if (isScriptedError(answer)) {
        // An API error means the request was not processed: the usage model never sees it.
        queue.shift();
        played++;
        throw new HttpError(answer.error.status, answer.error.type, answer.error.message);
      }
      response = answer;
    }

    let outcome: ReturnType<UsageModel['send']>;
    try {
      outcome = usageModel.send(params, at);
    } catch (e) {
      // The simulator knows models by profile; the API answers an unknown model with a 404.
      if (e instanceof UnknownModelError) throw new HttpError(404, 'not_found_error', `model: ${params.model}`);
      throw e;
    }
    // A refusal by the usage model leaves the script where it was, like any other 400.
    if (outcome.rejected) throw new HttpError(400, 'invalid_request_error', outcome.rejected.message);
    let scripted: ReturnType<typeof materialize>;
    if (response === undefined) {
      // Cache pre-warming (max_tokens 0): prefill only, no output, nothing taken from the script.
      scripted = { content: [], stop_reason: 'max_tokens', stop_sequence: null, output_tokens: 0 };
    } else {
      queue.shift();
      played++;
      scripted = materialize(response, () => `toolu_fake_${++toolIds}`);
    }
    const u = outcome.usage;
    const output_tokens =
      scripted.output_tokens ?? Math.max(1, scripted.content.reduce((n, b) => n + tokens.tokens(b), 0));
    const id = `msg_fake_${++messages}`;
    if (wantsDiagnostics) fingerprints.set(id, print);
    const message: Message = {
      id,
      type: 'message',
      role: 'assistant',
      model: scripted.model ?? params.model,
      content: scripted.content,
      stop_reason: scripted.stop_reason,
      stop_sequence: scripted.stop_sequence,
      stop_details: null,
      container: null,
      diagnostics,
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation: {
          ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens,
          ephemeral_1h_input_tokens: u.cache_creation.ephemeral_1h_input_tokens,
        },
        output_tokens,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: 'standard',
        inference_geo: null,
        speed: null,
      },
    };
    return outcome.explain === undefined ? { message } : { message, explain: outcome.explain };
  }

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
    const base = { index, method, path, at, headers: { ...req.headers }, requestId };
    try {
      body = text.length > 0 ? parseJson(text) : undefined;
      stream = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
      if (method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) {
        throw new HttpError(404, 'not_found_error', `Not found: ${method} ${path}`);
      }
      const endpoint = path === '/v1/messages' ? 'messages' : 'count_tokens';
      const issue = validateRequest(body, endpoint);
      if (issue !== null) throw new HttpError(400, 'invalid_request_error', issue.message);
      const params = body as MessageCreateParamsBase;

      if (endpoint === 'count_tokens') {
        const response: MessageTokensCount = { input_tokens: promptTokens(params, tokens).total };
        requests.push({ ...base, body, stream: false, status: 200, response });
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
        res.end(JSON.stringify(response));
        return;
      }

      const { message, explain } = createMessage(params, at);
      requests.push({ ...base, body, stream, status: 200, response: message, ...(explain === undefined ? {} : { explain }) });
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
        res.end(JSON.stringify(message));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId });
      for (const frame of messageFrames(message)) res.write(formatFrame(frame));
      res.end();
    } catch (e) {
      const err = e instanceof HttpError ? e : new HttpError(500, 'api_error', `fake server failed: ${String(e)}`);
      requests.push({ ...base, body, stream, status: err.status, error: { status: err.status, type: err.type, message: err.message } });
      res.writeHead(err.status, { 'content-type': 'application/json', 'request-id': requestId, ...err.headers });
      res.end(JSON.stringify({ type: 'error', error: { type: err.type, message: err.message }, request_id: requestId }));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // Only reachable if writing the response itself failed; nothing more can be sent.
      res.destroy(e instanceof Error ? e : new Error(String(e)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    usageModel,
    get remaining() {
      return queue.length;
    },
    script(...entries) {
      queue.push(...entries);
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

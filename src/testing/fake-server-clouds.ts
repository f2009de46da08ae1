/**
 * The fake server's cloud routes for Claude: Amazon Bedrock's InvokeModel
 * (`POST /model/{modelId}/invoke`, `…/invoke-with-response-stream`) and Google
 * Vertex AI's `rawPredict` / `streamRawPredict`
 * (`…/projects/{p}/locations/{l}/publishers/anthropic/models/{model}:rawPredict`),
 * so `AnthropicBedrock` and `AnthropicVertex` (and the AI SDK's Bedrock and
 * Vertex Anthropic providers) run against it with nothing but a `baseURL`.
 *
 * Both platforms take the Messages API body with the model in the URL and
 * `anthropic_version` in the body (the SDKs' clients move the
 * `anthropic-version` header there), Bedrock its betas as `anthropic_beta` in
 * the body. The request is answered as the Messages route
 * answers it; a Bedrock stream comes back as AWS event-stream `chunk` events
 * whose `bytes` are each server-sent event's JSON, a Vertex stream as the
 * Messages API's server-sent events.
 */
import { HttpError } from './fake-server-http.js';
import { encodeEventMessage } from './fake-server-eventstream.js';

/** A request for a cloud route: which cloud, the model the URL names, whether it streams. */
export interface CloudRoute {
  readonly cloud: 'bedrock' | 'vertex';
  readonly model: string;
  readonly stream: boolean;
  /** Vertex's `count-tokens:rawPredict` (the model is then in the body). */
  readonly countTokens: boolean;
}

const BEDROCK = /^\/model\/([^/]+)\/invoke(-with-response-stream)?$/;
const VERTEX = /\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

/** The cloud route a POST path names, or undefined. */
export function cloudRoute(path: string): CloudRoute | undefined {
  const b = BEDROCK.exec(path);
  if (b) return { cloud: 'bedrock', model: decodeURIComponent(b[1]!), stream: b[2] !== undefined, countTokens: false };
  const v = VERTEX.exec(path);
  if (!v) return undefined;
  const model = decodeURIComponent(v[1]!);
  return { cloud: 'vertex', model, stream: v[2] === 'streamRawPredict', countTokens: model === 'count-tokens' };
}

/**
 * The cloud body as Messages API params (the URL's model, `stream` by the route, no `anthropic_version`), and the
 * betas it asked for (Bedrock's `anthropic_beta`, or the `anthropic-beta` header).
 *
 * @throws {HttpError} 400 when `anthropic_version` is missing, as both platforms refuse such a body
 */
export function cloudParams(route: CloudRoute, body: unknown, header: string | string[] | undefined): { params: unknown; beta: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { params: body, beta: undefined };
  const { anthropic_version: version, anthropic_beta: betas, ...rest } = body as Record<string, unknown>;
  if (typeof version !== 'string' || version === '')
    throw new HttpError(
      400,
      'invalid_request_error',
      `anthropic_version: Field required (${route.cloud === 'bedrock' ? 'Bedrock' : 'Vertex AI'} reads the API version from the body)`,
    );
  const beta = Array.isArray(betas) ? betas.join(',') : Array.isArray(header) ? header.join(',') : header;
  const params = route.countTokens ? rest : { ...rest, model: route.model, ...(route.stream ? { stream: true } : {}) };
  return { params, beta };
}

/** Server-sent event frames (`event: …\ndata: {…}\n\n`) as Bedrock's InvokeModelWithResponseStream `chunk` events. */
export function bedrockChunks(frames: readonly string[]): Uint8Array[] {
  return frames.flatMap((frame) =>
    frame
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) =>
        encodeEventMessage(
          { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
          Buffer.from(JSON.stringify({ bytes: Buffer.from(l.slice(6)).toString('base64') })),
        ),
      ),
  );
}

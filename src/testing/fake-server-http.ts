/**
 * The HTTP plumbing of the fake Messages API: listening on loopback, reading a
 * JSON body, and answering with JSON, an SSE stream or an API-shaped error.
 * Knows nothing about messages or usage (see fake-server-messages.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An error answered the way the API answers it: `{ type: 'error', error: { type, message }, request_id }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** OpenAI's extra error fields (`param`, `code`). */
    readonly detail: { readonly param: string | null; readonly code: string | null } = { param: null, code: null },
  ) {
    super(message);
  }
}

/** The whole request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** Parses a request body; malformed JSON is the API's 400 with its wording. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'invalid_request_error', `There was an error parsing the body of your request: ${(e as Error).message}`);
  }
}

/** Answers 200 with a JSON body. */
export function sendJson(res: ServerResponse, requestId: string, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
  res.end(JSON.stringify(body));
}

/** Answers 200 with server-sent events, already formatted. */
export function sendEvents(res: ServerResponse, requestId: string, frames: Iterable<string>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId });
  for (const frame of frames) res.write(frame);
  res.end();
}

/** Answers 200 with AWS event-stream messages (Bedrock's streaming responses). */
export function sendEventStream(res: ServerResponse, requestId: string, messages: Iterable<Uint8Array>): void {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId });
  for (const m of messages) res.write(m);
  res.end();
}

/** Answers an {@link HttpError} with the API's error body. */
export function sendError(res: ServerResponse, requestId: string, err: HttpError): void {
  res.writeHead(err.status, { 'content-type': 'application/json', 'request-id': requestId, ...err.headers });
  res.end(JSON.stringify({ type: 'error', error: { type: err.type, message: err.message }, request_id: requestId }));
}

/** Answers an {@link HttpError} the way OpenAI does: `{ error: { message, type, param, code } }`. */
export function sendOpenAIError(res: ServerResponse, requestId: string, err: HttpError): void {
  res.writeHead(err.status, { 'content-type': 'application/json', 'x-request-id': requestId, ...err.headers });
  res.end(JSON.stringify({ error: { message: err.message, type: err.type, param: err.detail.param, code: err.detail.code } }));
}

/** Answers an {@link HttpError} the way Bedrock does: the error type in `x-amzn-ErrorType`, `{ message }` as the body. */
export function sendBedrockError(res: ServerResponse, requestId: string, err: HttpError): void {
  const type = err.type.endsWith('Exception') ? err.type : err.status === 404 ? 'ResourceNotFoundException' : 'ValidationException';
  res.writeHead(err.status, { 'content-type': 'application/json', 'x-amzn-requestid': requestId, 'x-amzn-errortype': type, ...err.headers });
  res.end(JSON.stringify({ message: err.message }));
}

/** A listening loopback server. */
export interface Listening {
  readonly port: number;
  /** Stops listening and drops open (keep-alive) connections. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (`port` 0: any free port) and hands every request to `handle`. */
export async function listen(port: number, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Listening> {
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // Only reachable if writing the response itself failed; nothing more can be sent.
      res.destroy(e instanceof Error ? e : new Error(String(e)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

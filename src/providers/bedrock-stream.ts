/**
 * A Converse stream (`ConverseStreamCommand`'s `stream`) read into the
 * response `ConverseCommand` would have given, so a streaming loop records
 * exactly what a non-streaming one does: `fromConverseOutput(response)` for
 * the blocks, `response.usage` for the cache figures.
 *
 * The events, per the ConverseStream reference and the AWS SDK's types:
 * `messageStart`, per content block `contentBlockStart` (tool uses only),
 * `contentBlockDelta`s (text; tool input as JSON text in pieces; reasoning
 * text, then its signature; redacted reasoning as bytes) and
 * `contentBlockStop`, then `messageStop` (the stop reason) and `metadata`
 * (usage with `cacheReadInputTokens` / `cacheWriteInputTokens`, metrics).
 */
import { ProviderMappingError } from '../errors.js';
import { bytesOf } from '../internal/base64.js';
import type { ConverseDocument } from './bedrock-types.js';

// TYPES

/** One event of a Converse stream, structurally (the AWS SDK's `ConverseStreamOutput` of any version fits). */
export interface ConverseStreamEventLike {
  readonly messageStart?: { readonly role?: string | undefined } | undefined;
  readonly contentBlockStart?:
    | {
        readonly contentBlockIndex?: number | undefined;
        readonly start?: { readonly toolUse?: { readonly toolUseId?: string | undefined; readonly name?: string | undefined } | undefined } | undefined;
      }
    | undefined;
  readonly contentBlockDelta?:
    | {
        readonly contentBlockIndex?: number | undefined;
        readonly delta?:
          | {
              readonly text?: string | undefined;
              readonly toolUse?: { readonly input?: string | undefined } | undefined;
              readonly reasoningContent?:
                | { readonly text?: string | undefined; readonly signature?: string | undefined; readonly redactedContent?: Uint8Array | string | undefined }
                | undefined;
            }
          | undefined;
      }
    | undefined;
  readonly contentBlockStop?: { readonly contentBlockIndex?: number | undefined } | undefined;
  readonly messageStop?: { readonly stopReason?: string | undefined; readonly additionalModelResponseFields?: unknown } | undefined;
  readonly metadata?: { readonly usage?: ConverseUsage | undefined; readonly metrics?: { readonly latencyMs?: number | undefined } | undefined } | undefined;
}

/** Converse's token usage (`TokenUsage`). */
export interface ConverseUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly cacheReadInputTokens?: number | undefined;
  readonly cacheWriteInputTokens?: number | undefined;
}

/** A content block of a collected response, as `ConverseCommand`'s output holds it. */
export type CollectedConverseBlock =
  | { text: string }
  | { toolUse: { toolUseId: string; name: string; input: ConverseDocument } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } }
  | { reasoningContent: { redactedContent: Uint8Array } };

/** What {@link collectConverseStream} returns: the shape of a `ConverseCommand` response. */
export interface CollectedConverseResponse {
  output: { message: { role: 'assistant'; content: CollectedConverseBlock[] } };
  stopReason: string;
  usage?: ConverseUsage;
  metrics?: { latencyMs?: number | undefined };
  additionalModelResponseFields?: unknown;
}

// IMPLEMENTATION

type Open =
  | { kind: 'text'; text: string }
  | { kind: 'toolUse'; toolUseId: string; name: string; input: string }
  | { kind: 'reasoning'; text: string; signature?: string }
  | { kind: 'redacted'; bytes: Uint8Array[] };

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function broken(where: string, why: string): never {
  throw new ProviderMappingError('bedrock', where, why, 'Do not record this response: send the request again.');
}

/**
 * Reads Converse stream events one at a time, for a loop that also shows the
 * deltas as they arrive; {@link ConverseStreamCollector.response} is then the
 * response `ConverseCommand` would have given.
 *
 * @example
 * const out = await bedrock.send(new ConverseStreamCommand(input));
 * const collector = new ConverseStreamCollector();
 * for await (const event of out.stream!) {
 *   collector.add(event);
 *   process.stdout.write(event.contentBlockDelta?.delta?.text ?? '');
 * }
 * const response = collector.response(); // what collectConverseStream(out.stream!) gives
 */
export class ConverseStreamCollector {
  readonly #blocks: Open[] = [];
  #stopReason: string | undefined;
  #fields: unknown;
  #usage: ConverseUsage | undefined;
  #metrics: { latencyMs?: number | undefined } | undefined;
  #events = 0;

  /** Takes the next event (an exception event never gets here: the AWS SDK throws it from the iteration). */
  add(event: ConverseStreamEventLike): void {
    const n = this.#events++;
    const start = event.contentBlockStart;
    if (start?.start?.toolUse) {
      const i = this.#index(start.contentBlockIndex, n, 'contentBlockStart');
      const t = start.start.toolUse;
      // A tool_use without its id could not be paired with its result: the response is malformed, not recordable.
      for (const field of ['toolUseId', 'name'] as const) {
        if (typeof t[field] !== 'string' || t[field] === '') broken(`event ${n} (contentBlockStart of block ${i})`, `a tool use without its ${field}`);
      }
      this.#blocks[i] = { kind: 'toolUse', toolUseId: t.toolUseId!, name: t.name!, input: '' };
    }
    const delta = event.contentBlockDelta;
    if (delta?.delta) this.#delta(this.#index(delta.contentBlockIndex, n, 'contentBlockDelta'), delta.delta, n);
    if (event.messageStop) {
      this.#stopReason = event.messageStop.stopReason;
      this.#fields = event.messageStop.additionalModelResponseFields;
    }
    if (event.metadata) {
      this.#usage = event.metadata.usage;
      this.#metrics = event.metadata.metrics;
    }
  }

  #index(i: number | undefined, n: number, type: string): number {
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0) broken(`event ${n} (${type})`, `contentBlockIndex is ${String(i)}, not a block index`);
    return i;
  }

  #delta(i: number, d: NonNullable<NonNullable<ConverseStreamEventLike['contentBlockDelta']>['delta']>, n: number): void {
    const open = this.#blocks[i];
    const where = `event ${n} (contentBlockDelta of block ${i})`;
    const mismatch = (kind: string): never => broken(where, `a ${kind} delta for a block that began as ${open?.kind}`);
    if (typeof d.text === 'string') {
      if (!open) this.#blocks[i] = { kind: 'text', text: d.text };
      else if (open.kind === 'text') open.text += d.text;
      else mismatch('text');
    } else if (d.toolUse) {
      if (open?.kind !== 'toolUse') broken(where, 'a tool input delta without its contentBlockStart');
      open.input += d.toolUse.input ?? '';
    } else if (d.reasoningContent) {
      const r = d.reasoningContent;
      if (r.redactedContent !== undefined) {
        if (!open) this.#blocks[i] = { kind: 'redacted', bytes: [bytesOf(r.redactedContent)] };
        else if (open.kind === 'redacted') open.bytes.push(bytesOf(r.redactedContent));
        else mismatch('redacted reasoning');
        return;
      }
      const block = open ?? (this.#blocks[i] = { kind: 'reasoning', text: '' });
      if (block.kind !== 'reasoning') broken(where, `a reasoning delta for a block that began as ${block.kind}`);
      if (typeof r.text === 'string') block.text += r.text;
      if (typeof r.signature === 'string') block.signature = (block.signature ?? '') + r.signature;
    }
  }

  /**
   * The response `ConverseCommand` would have given for the same request.
   *
   * @throws {ProviderMappingError} when the stream ended before `messageStop` (cut off), or a tool's input is not JSON
   */
  response(): CollectedConverseResponse {
    if (this.#stopReason === undefined) broken('stream', `ended after ${this.#events} events without messageStop (the response is incomplete)`);
    const content = this.#blocks.map((b, i): CollectedConverseBlock => {
      switch (b.kind) {
        case 'text':
          return { text: b.text };
        case 'toolUse': {
          let input: ConverseDocument;
          try {
            input = b.input === '' ? {} : (JSON.parse(b.input) as ConverseDocument);
          } catch {
            return broken(`content[${i}].toolUse.input`, `the streamed tool input is not JSON (${JSON.stringify(b.input.slice(0, 60))})`);
          }
          return { toolUse: { toolUseId: b.toolUseId, name: b.name, input } };
        }
        case 'reasoning':
          return { reasoningContent: { reasoningText: { text: b.text, ...(b.signature === undefined ? {} : { signature: b.signature }) } } };
        case 'redacted':
          return { reasoningContent: { redactedContent: concat(b.bytes) } };
      }
    });
    return {
      output: { message: { role: 'assistant', content: content.filter((c) => c !== undefined) } },
      stopReason: this.#stopReason,
      ...(this.#usage === undefined ? {} : { usage: this.#usage }),
      ...(this.#metrics === undefined ? {} : { metrics: this.#metrics }),
      ...(this.#fields === undefined ? {} : { additionalModelResponseFields: this.#fields }),
    };
  }
}

/**
 * Reads a whole Converse stream into the response `ConverseCommand` would have
 * given, so a streaming loop records what a non-streaming one does.
 *
 * @throws {ProviderMappingError} when the stream ended before `messageStop`, or a tool's input is not JSON
 * @example
 * const out = await bedrock.send(new ConverseStreamCommand(toBedrockConverse(rendered)));
 * const response = await collectConverseStream(out.stream!);
 * state = appendResponse(rendered.state, fromConverseOutput(response)); // response.usage: the cache figures
 */
export async function collectConverseStream(stream: AsyncIterable<ConverseStreamEventLike>): Promise<CollectedConverseResponse> {
  const collector = new ConverseStreamCollector();
  for await (const event of stream) collector.add(event);
  return collector.response();
}

/**
 * AWS's binary event-stream framing (`application/vnd.amazon.eventstream`),
 * what Bedrock's `ConverseStream` answers with, and the Converse stream events
 * of one response.
 *
 * A message: total length (uint32, big-endian), headers length (uint32), the
 * CRC32 of those 8 bytes, the headers, the payload, and the CRC32 of everything
 * before it. A header: name length (uint8), name, value type (uint8; 7 is a
 * string), value length (uint16), value. Bedrock sends each event with the
 * string headers `:event-type` (the member's name, e.g. `contentBlockDelta`),
 * `:content-type` (`application/json`) and `:message-type` (`event`), and the
 * member's JSON as the payload, padded with a `p` field (the AI SDK's decoder
 * deletes it; the AWS SDK ignores it).
 *
 * The events follow the ConverseStream reference (ConverseStreamOutput,
 * ContentBlockStart/Delta/StopEvent, ConverseStreamMetadataEvent; the AWS SDK's
 * types, @aws-sdk/client-bedrock-runtime 3.1164): `messageStart`, then per
 * content block its deltas and `contentBlockStop` (a `contentBlockStart` only
 * for a tool use: the start union has no text or reasoning member), then
 * `messageStop` and `metadata` with the usage.
 */

/** CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum the framing uses. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One event-stream message with string headers and `payload` as its body. */
export function encodeEventMessage(headers: Readonly<Record<string, string>>, payload: Uint8Array): Buffer {
  const head = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, 'utf8');
      const v = Buffer.from(value, 'utf8');
      const h = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      h.writeUInt8(n.length, 0);
      n.copy(h, 1);
      h.writeUInt8(7, 1 + n.length);
      h.writeUInt16BE(v.length, 2 + n.length);
      v.copy(h, 4 + n.length);
      return h;
    }),
  );
  const total = 12 + head.length + payload.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(head.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  head.copy(out, 12);
  Buffer.from(payload).copy(out, 12 + head.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** A Converse stream event: its member name and the member's value. */
export interface ConverseStreamEvent {
  readonly type: string;
  readonly value: Readonly<Record<string, unknown>>;
}

/** One event as Bedrock frames it. */
export function encodeConverseEvent(event: ConverseStreamEvent): Buffer {
  const json = JSON.stringify({ ...event.value, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGH'.slice(0, 1 + (event.type.length % 30)) });
  return encodeEventMessage({ ':event-type': event.type, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(json, 'utf8'));
}

/** A string in two pieces (a real stream splits text and tool input over several deltas). */
function halves(s: string): string[] {
  const mid = Math.ceil(s.length / 2);
  return s.length < 2 ? [s] : [s.slice(0, mid), s.slice(mid)];
}

/**
 * The events a Converse response (`{ output: { message }, stopReason, usage, metrics }`, as the Converse route
 * answers it) streams as. Blobs (redacted reasoning) are base64 in JSON, as on the wire.
 */
export function converseStreamEvents(response: {
  readonly output: { readonly message: { readonly content: readonly Readonly<Record<string, unknown>>[] } };
  readonly stopReason: string;
  readonly usage: unknown;
  readonly metrics: unknown;
}): ConverseStreamEvent[] {
  const events: ConverseStreamEvent[] = [{ type: 'messageStart', value: { role: 'assistant' } }];
  response.output.message.content.forEach((block, contentBlockIndex) => {
    const delta = (d: unknown) => events.push({ type: 'contentBlockDelta', value: { contentBlockIndex, delta: d } });
    if (typeof block.text === 'string') for (const text of halves(block.text)) delta({ text });
    const toolUse = block.toolUse as { toolUseId: string; name: string; input: unknown } | undefined;
    if (toolUse) {
      events.push({ type: 'contentBlockStart', value: { contentBlockIndex, start: { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } } } });
      for (const input of halves(JSON.stringify(toolUse.input ?? {}))) delta({ toolUse: { input } });
    }
    const reasoning = block.reasoningContent as { reasoningText?: { text: string; signature?: string }; redactedContent?: string } | undefined;
    if (reasoning?.reasoningText) {
      for (const text of halves(reasoning.reasoningText.text)) delta({ reasoningContent: { text } });
      if (reasoning.reasoningText.signature !== undefined) delta({ reasoningContent: { signature: reasoning.reasoningText.signature } });
    }
    if (reasoning?.redactedContent !== undefined) delta({ reasoningContent: { redactedContent: reasoning.redactedContent } });
    events.push({ type: 'contentBlockStop', value: { contentBlockIndex } });
  });
  events.push({ type: 'messageStop', value: { stopReason: response.stopReason } });
  events.push({ type: 'metadata', value: { usage: response.usage, metrics: response.metrics } });
  return events;
}

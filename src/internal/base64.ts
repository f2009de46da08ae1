/**
 * Base64 ⇄ bytes with the web platform's `atob` / `btoa`, not Node's Buffer: the core entry imports no Node
 * built-ins, so it runs on edge runtimes too. One copy for the Converse mapping and stream, `prepareConverse`, the
 * AI SDK's file parts and the simulator.
 */

/** Base64 of bytes; a string is taken as base64 already (the JSON form of a Converse blob). */
export function base64Of(bytes: Uint8Array | string): string {
  if (typeof bytes === 'string') return bytes;
  let binary = '';
  // In chunks: fromCharCode takes a bounded number of arguments, and one call per byte is a concatenation per byte.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The bytes of base64 text; bytes are returned as they are. */
export function bytesOf(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Uint8Array.from(atob(data), (c) => c.charCodeAt(0)) : data;
}

/** What `atob` skips in base64 text (the forgiving-base64 ASCII whitespace). */
const SPACES = /[\t\n\f\r ]/g;

/**
 * Bytes a base64 text decodes to, read from its length without decoding it (whitespace left out, padding
 * subtracted).
 *
 * @example
 * decodedLength(btoa('abcd')); // 4
 */
export function decodedLength(base64: string): number {
  const clean = base64.replace(SPACES, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

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
export const BASE64_SPACES = /[\t\n\f\r ]/g;

/**
 * `base64` without what `atob` skips: the text itself when it holds none, as the APIs' base64 does. Five `includes`
 * scans, not a regular expression's: on a 1 MB image ~50 µs against ~400 µs (each new image and Office document is
 * read here on `prepare`'s and the Session's path).
 */
function withoutSpaces(base64: string): string {
  for (const space of ' \n\r\t\f') if (base64.includes(space)) return base64.replace(BASE64_SPACES, '');
  return base64;
}

/** Bytes a base64 text without whitespace decodes to (padding subtracted). */
function cleanLength(clean: string): number {
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * Bytes a base64 text decodes to, read from its length without decoding it (whitespace left out, padding
 * subtracted).
 *
 * @example
 * decodedLength(btoa('abcd')); // 4
 */
export function decodedLength(base64: string): number {
  return cleanLength(withoutSpaces(base64));
}

/**
 * Random access to the bytes of base64 text without decoding all of it: `read(start, end)` decodes only the groups
 * that hold those bytes (cut at the data's end; undefined from past it, or when the text is not base64).
 *
 * @example
 * base64Reader(btoa('GIF89a'))(0, 4); // Uint8Array [71, 73, 70, 56]
 */
export function base64Reader(base64: string): (start: number, end: number) => Uint8Array | undefined {
  const clean = withoutSpaces(base64);
  const total = cleanLength(clean);
  return (start, end) => {
    const stop = Math.min(end, total);
    if (start < 0 || start >= stop) return undefined;
    const from = Math.floor(start / 3);
    let binary: string;
    try {
      binary = atob(clean.slice(from * 4, Math.ceil(stop / 3) * 4));
    } catch {
      return undefined;
    }
    const out = new Uint8Array(stop - start);
    for (let i = 0; i < out.length; i++) out[i] = binary.charCodeAt(start - from * 3 + i);
    return out;
  };
}

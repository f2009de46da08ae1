/**
 * SHA-256 and SHA-1 of a string's UTF-8 bytes, in plain JavaScript: the core
 * must run on edge runtimes (no `node:crypto`), and Web Crypto's digest is
 * asynchronous while keys are computed synchronously. Same digests as
 * `createHash('sha256' | 'sha1')` (tested against node:crypto).
 */

const K256 = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const W = new Int32Array(80);
let buffer = new Uint8Array(256);
const encoder = new TextEncoder();

/** The message padded to a multiple of 64 bytes with its bit length (big-endian) at the end; returns the byte count. */
function pad(text: string): number {
  // Worst case 3 bytes per UTF-16 unit, plus padding.
  const max = text.length * 3 + 72;
  if (buffer.length < max) buffer = new Uint8Array(Math.max(max, buffer.length * 2));
  let n = 0;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      ascii = false;
      break;
    }
    buffer[n++] = c;
  }
  if (!ascii) n = encoder.encodeInto(text, buffer).written;
  const bits = n * 8;
  let end = n + 1;
  while (end % 64 !== 56) end++;
  buffer.fill(0, n, end + 8);
  buffer[n] = 0x80;
  // Lengths up to 2^53 bits: high word from a division, low word as a uint32.
  const hi = Math.floor(bits / 0x100000000);
  const lo = bits >>> 0;
  buffer[end] = hi >>> 24;
  buffer[end + 1] = hi >>> 16;
  buffer[end + 2] = hi >>> 8;
  buffer[end + 3] = hi;
  buffer[end + 4] = lo >>> 24;
  buffer[end + 5] = lo >>> 16;
  buffer[end + 6] = lo >>> 8;
  buffer[end + 7] = lo;
  return end + 8;
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex(words: readonly number[]): string {
  let out = '';
  for (const w of words) out += HEX[(w >>> 24) & 255]! + HEX[(w >>> 16) & 255]! + HEX[(w >>> 8) & 255]! + HEX[w & 255]!;
  return out;
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 hex digits. */
export function sha256Hex(text: string): string {
  const len = pad(text);
  const b = buffer;
  let h0 = 0x6a09e667,
    h1 = 0xbb67ae85 | 0,
    h2 = 0x3c6ef372,
    h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f,
    h5 = 0x9b05688c | 0,
    h6 = 0x1f83d9ab,
    h7 = 0x5be0cd19;
  for (let off = 0; off < len; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      W[i] = (b[j]! << 24) | (b[j + 1]! << 16) | (b[j + 2]! << 8) | b[j + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!;
      const y = W[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
    }
    let a = h0,
      bb = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K256[i]! + W[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & bb) ^ (a & c) ^ (bb & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + bb) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  return hex([h0, h1, h2, h3, h4, h5, h6, h7]);
}

/** SHA-1 of the UTF-8 bytes of `text`, as 20 raw bytes. */
export function sha1Bytes(text: string): Uint8Array {
  const len = pad(text);
  const b = buffer;
  let h0 = 0x67452301,
    h1 = 0xefcdab89 | 0,
    h2 = 0x98badcfe | 0,
    h3 = 0x10325476,
    h4 = 0xc3d2e1f0 | 0;
  for (let off = 0; off < len; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      W[i] = (b[j]! << 24) | (b[j + 1]! << 16) | (b[j + 2]! << 8) | b[j + 3]!;
    }
    for (let i = 16; i < 80; i++) {
      const x = W[i - 3]! ^ W[i - 8]! ^ W[i - 14]! ^ W[i - 16]!;
      W[i] = (x << 1) | (x >>> 31);
    }
    let a = h0,
      bb = h1,
      c = h2,
      d = h3,
      e = h4;
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? (bb & c) | (~bb & d) : i < 40 ? bb ^ c ^ d : i < 60 ? (bb & c) | (bb & d) | (c & d) : bb ^ c ^ d;
      const k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc | 0 : 0xca62c1d6 | 0;
      const t = (((a << 5) | (a >>> 27)) + f + e + k + W[i]!) | 0;
      e = d;
      d = c;
      c = (bb << 30) | (bb >>> 2);
      bb = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + bb) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  [h0, h1, h2, h3, h4].forEach((w, i) => {
    out[i * 4] = w >>> 24;
    out[i * 4 + 1] = w >>> 16;
    out[i * 4 + 2] = w >>> 8;
    out[i * 4 + 3] = w;
  });
  return out;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Bytes as unpadded base64url (what `digest('base64url')` gives). */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]!;
  }
  return out;
}

/** A random UUID v4 from the platform's Web Crypto (`globalThis.crypto`: Node ≥ 19, browsers, edge runtimes). */
export function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The pixel size an image's own header states (PNG, GIF, WebP, JPEG), read from a few bytes without decoding the
 * image: what the APIs' dimension limits are checked against (Anthropic, "Vision": "The maximal dimensions per image
 * are 8000x8000 px", https://platform.claude.com/docs/en/build-with-claude/vision.md, read 2026-12-02, and the API's
 * 400 "…image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels" in
 * anthropics/claude-code#4778, 2025-08-04; Bedrock, Message: "Each image's size, height, and width must be no more
 * than 3.75 MB, 8000 px, and 8000 px", https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html,
 * read 2026-12-02). Formats by their magic bytes (PNG's IHDR, GIF's logical screen, WebP's VP8/VP8L/VP8X header,
 * JPEG's start-of-frame marker), not by the declared media type.
 */

/** Bytes `start..end` of the image, or undefined past its end (or when they cannot be read). */
export type ByteReader = (start: number, end: number) => Uint8Array | undefined;

/** The most pixels either side of an image may measure, on the Messages API and on Bedrock's Converse API. */
export const IMAGE_MAX_SIDE = 8000;

/** JPEG start-of-frame markers (C0–CF less DHT C4, JPG C8 and DAC CC): the frame header holds the size. */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG segments looked at before giving up (APP segments of metadata, tables; the frame comes early). */
const MAX_SEGMENTS = 256;

const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const be32 = (b: Uint8Array, i: number) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

/**
 * Width and height as the image's header states them, or undefined (a format not listed, or a header cut short).
 *
 * @example
 * imageSize((s, e) => png.subarray(s, e)); // { width: 1092, height: 1092 }
 */
export function imageSize(read: ByteReader): { width: number; height: number } | undefined {
  const head = read(0, 30);
  if (head === undefined || head.length < 12) return undefined;
  if (head[0] === 0x89 && ascii(head, 1, 3) === 'PNG' && head.length >= 24 && ascii(head, 12, 4) === 'IHDR') {
    return { width: be32(head, 16), height: be32(head, 20) };
  }
  if (ascii(head, 0, 4) === 'GIF8') return { width: le16(head, 6), height: le16(head, 8) };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP' && head.length >= 30) {
    const chunk = ascii(head, 12, 4);
    if (chunk === 'VP8X')
      return { width: 1 + (head[24]! | (head[25]! << 8) | (head[26]! << 16)), height: 1 + (head[27]! | (head[28]! << 8) | (head[29]! << 16)) };
    if (chunk === 'VP8L') {
      const bits = (head[21]! | (head[22]! << 8) | (head[23]! << 16) | (head[24]! << 24)) >>> 0;
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
    }
    if (chunk === 'VP8 ') return { width: le16(head, 26) & 0x3fff, height: le16(head, 28) & 0x3fff };
    return undefined;
  }
  if (head[0] === 0xff && head[1] === 0xd8) return jpegSize(read);
  return undefined;
}

/** The frame size of a JPEG: its segments walked by their lengths up to a start-of-frame marker. */
function jpegSize(read: ByteReader): { width: number; height: number } | undefined {
  let at = 2;
  for (let n = 0; n < MAX_SEGMENTS; n++) {
    const seg = read(at, at + 9);
    if (seg === undefined || seg.length < 4 || seg[0] !== 0xff) return undefined;
    const marker = seg[1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (SOF.has(marker)) return seg.length < 9 ? undefined : { width: be16(seg, 7), height: be16(seg, 5) };
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame
    at += 2 + be16(seg, 2);
  }
  return undefined;
}

/**
 * Why an image's stated size is over {@link IMAGE_MAX_SIDE}, or undefined.
 *
 * @example
 * oversizedImage(read); // 'an image of 1280×12000 px: the API takes at most 8000 px a side'
 */
export function oversizedImage(read: ByteReader, api: string): string | undefined {
  const size = imageSize(read);
  if (size === undefined || (size.width <= IMAGE_MAX_SIDE && size.height <= IMAGE_MAX_SIDE)) return undefined;
  return `an image of ${size.width}×${size.height} px: ${api} takes at most ${IMAGE_MAX_SIDE} px a side; scale it down (or cut a tall screenshot into parts)`;
}

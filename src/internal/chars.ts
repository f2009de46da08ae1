/**
 * Character classes read one code unit at a time, for hot loops that would
 * otherwise run a regex over a whole text.
 */

const WS = /\s/;
const ASCII_WS = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_WS[c] = 1;

/** Whether a UTF-16 code unit is whitespace as `\s` and `trim()` see it (the same set: WhiteSpace and LineTerminator). */
export function isSpace(c: number): boolean {
  return c < 128 ? ASCII_WS[c] === 1 : WS.test(String.fromCharCode(c));
}

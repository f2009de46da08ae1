/**
 * A line of ours that may quote the input (a broken line's start, a model name): C0 control characters other than
 * tab, DEL and the C1 controls (U+0080-U+009F: CSI is U+009B) are written as `\u001b`-style escapes, so a log
 * cannot drive the user's terminal (retitle it, move the cursor, erase the line). Newlines are the caller's.
 */
export function printable(text: string): string {
  let out = '';
  for (const c of text) {
    const n = c.charCodeAt(0);
    out += (n < 0x20 && c !== '\t' && c !== '\n') || (n >= 0x7f && n <= 0x9f) ? `\\u${n.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

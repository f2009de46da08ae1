/**
 * ② on a model that strips thinking looks for the first thinking block the request still sends
 * (cache-points.ts firstThinkingFrom). A turn without thinking is scanned once, not on every request: the scan
 * remembers how far it found none, and trusts that only while the block it stopped at is still there.
 */
import { describe, expect, it } from 'vitest';
import { firstThinkingFrom } from '../../src/render/cache-points.js';
import type { StreamBlock } from '../../src/timeline/types.js';

let reads = 0;
function block(role: 'user' | 'assistant', type: string): StreamBlock {
  const param =
    type === 'thinking' ? { type, thinking: 't', signature: 's' } : type === 'tool_result' ? { type, tool_use_id: 'x', content: 'r' } : { type, text: 'x' };
  return {
    role,
    get param() {
      reads++;
      return param;
    },
  } as unknown as StreamBlock;
}
const plain = (n: number) => Array.from({ length: n }, (_, k) => block(k % 2 === 0 ? 'assistant' : 'user', k % 2 === 0 ? 'text' : 'tool_result'));

describe('firstThinkingFrom', () => {
  it('finds the first thinking block at or after a position, or none', () => {
    const s = [block('user', 'text'), ...plain(6), block('assistant', 'thinking'), block('assistant', 'text')];
    expect(firstThinkingFrom(s, 0)).toBe(7);
    expect(firstThinkingFrom(s, 8)).toBeUndefined();
    expect(firstThinkingFrom([block('user', 'text'), ...plain(4)], 0)).toBeUndefined();
    expect(firstThinkingFrom([], 0)).toBeUndefined();
  });

  it('a turn without thinking is not read again as it grows, and thinking appended later is found', () => {
    const start = block('user', 'text');
    let s = [start, ...plain(400)];
    expect(firstThinkingFrom(s, 0)).toBeUndefined();
    for (let k = 0; k < 50; k++) {
      s = [...s, ...plain(2)];
      reads = 0;
      expect(firstThinkingFrom(s, 0)).toBeUndefined();
      expect(reads).toBeLessThanOrEqual(2);
    }
    s = [...s, block('assistant', 'thinking')];
    expect(firstThinkingFrom(s, 0)).toBe(s.length - 1);
  });

  it('a block removed or put in before where the last scan stopped sends it back to the start', () => {
    const start = block('user', 'text');
    const body = plain(20);
    expect(firstThinkingFrom([start, ...body], 0)).toBeUndefined();
    // A thinking block put in the middle (and one removed, so the length is the same): found.
    const swapped = [start, ...body.slice(0, 5), block('assistant', 'thinking'), ...body.slice(5, 19)];
    expect(firstThinkingFrom(swapped, 0)).toBe(6);
    expect(firstThinkingFrom([start, ...body.slice(0, 5), block('assistant', 'thinking'), ...body.slice(5)], 0)).toBe(6);
    // A shorter stream than the scan reached: scanned again.
    expect(firstThinkingFrom([start, ...body.slice(0, 3), block('assistant', 'thinking')], 0)).toBe(4);
  });
});

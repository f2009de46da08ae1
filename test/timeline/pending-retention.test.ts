/**
 * A long open turn's pending edits (edit.ts turnWithRound: its rounds are built when first read) hold the rounds array
 * they were made on only until they are built: once read, or once deeper than the pending edits kept (a caller that
 * appends without reading, an import), the chain behind them goes, so an unread turn does not keep every older rounds
 * array of the session alive (nor make each append walk a chain as long as the session).
 */
import { describe, expect, it } from 'vitest';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { Round, TimelineState } from '../../src/timeline/types.js';
import { newSession, toolResponse } from '../helpers/build.js';
import { collect } from '../helpers/gc.js';

/** A response with one call, and its result, appended without reading the turn's rounds. */
function respond(s: TimelineState, text: string): TimelineState {
  const response = toolResponse(1);
  const id = (response.find((b) => b.type === 'tool_use') as { id: string }).id;
  return appendToolResults(appendResponse(s, response), [{ type: 'tool_result', tool_use_id: id, content: text }]);
}

/** An open turn of `n` answered rounds, its rounds read after every round (built). */
function longTurn(n: number): TimelineState {
  let s = startTurn(newSession(), 'start');
  for (let i = 0; i < n; i++) {
    s = respond(s, `r${i}`);
    void s.turns.at(-1)!.rounds;
  }
  return s;
}

async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A weak reference's target stays alive until the job that made it ends.
  await new Promise((r) => setTimeout(r, 0));
  collect();
  return ref.deref() === undefined;
}

describe('pending rounds of a long open turn', () => {
  it('edited many times without a read, keep no older rounds array alive', async () => {
    let s = longTurn(40);
    const root = new WeakRef<readonly Round[]>(s.turns.at(-1)!.rounds);
    // 40 edits nobody reads: deeper than the pending edits kept.
    for (let i = 0; i < 20; i++) s = respond(s, `u${i}`);
    expect(await collected(root)).toBe(true);
    expect(s.turns.at(-1)!.rounds.map((r) => r.index)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('once read, keep nothing they were built from', async () => {
    let s = longTurn(40);
    const root = new WeakRef<readonly Round[]>(s.turns.at(-1)!.rounds);
    s = respond(s, 'x');
    expect(s.turns.at(-1)!.rounds).toHaveLength(41);
    expect(await collected(root)).toBe(true);
  });
});

/**
 * The appends' records of where a rounds array came from (edit.ts, what sharedRounds follows) hold no array: an
 * open turn's older rounds arrays are collectable once no state holds them. A record that held the array before
 * (whose record held the one before it) kept every version of a long turn alive: O(rounds²) memory.
 */
import { describe, expect, it } from 'vitest';
import { collect } from '../helpers/gc.js';
import { sharedRounds, startTurn } from '../../src/timeline/edit.js';
import type { Round, TimelineState } from '../../src/timeline/types.js';
import { newSession, toolRound } from '../helpers/build.js';

/** An open turn of `rounds` tool rounds; weak references to the rounds array of every version but the newest. */
function openTurn(rounds: number): { state: TimelineState; older: WeakRef<readonly Round[]>[] } {
  let state = startTurn(newSession(), 'start');
  const older: WeakRef<readonly Round[]>[] = [];
  for (let i = 0; i < rounds; i++) {
    older.push(new WeakRef(state.turns.at(-1)!.rounds));
    state = toolRound(state, 1 + (i % 2), 50);
  }
  return { state, older };
}

describe('noteRounds / sharedRounds', () => {
  it('keeps no older rounds array of a long open turn alive through its records', async () => {
    const { state, older } = openTurn(60);
    // A weak reference's target stays alive until the job that made it ends.
    await new Promise((r) => setTimeout(r, 0));
    collect();
    // Past 16 rounds every version is recorded; only the newest state is held here.
    const alive = older.filter((w) => w.deref() !== undefined).length;
    expect(alive).toBe(0);
    // The newest version still reads its rounds.
    const rounds = state.turns.at(-1)!.rounds;
    expect(rounds).toHaveLength(60);
    expect(sharedRounds(rounds, rounds, 60)).toBe(60);
  });
});

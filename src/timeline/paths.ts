/**
 * Logical paths: the address by which any block can be read back, even after
 * it was hidden, pruned or compacted. Turns and rounds count from 1, like the
 * words of DESIGN.md ("round N of turn T"); block indexes inside a message count from 0.
 *
 *   envelope/tools/<name>          envelope/instructions/<i>     envelope/skills
 *   turns/<T>/user/<i>
 *   turns/<T>/rounds/<N>/response/<i>     (text, thinking, …)
 *   turns/<T>/rounds/<N>/calls/<tool_use_id>
 *   turns/<T>/rounds/<N>/results/<tool_use_id>
 *   turns/<T>/rounds/<N>/results/text-<i>   (text the runtime injected)
 *   tail/<i>   summaries/<k>   notices/prune
 */
import type { Block, BlockPath, Round, TimelineState, Turn } from './types.js';

export const paths = {
  tool: (name: string): BlockPath => `envelope/tools/${name}`,
  instruction: (i: number): BlockPath => `envelope/instructions/${i}`,
  skills: (): BlockPath => 'envelope/skills',
  user: (turn: number, i: number): BlockPath => `turns/${turn}/user/${i}`,
  response: (turn: number, round: number, i: number): BlockPath => `turns/${turn}/rounds/${round}/response/${i}`,
  call: (turn: number, round: number, id: string): BlockPath => `turns/${turn}/rounds/${round}/calls/${id}`,
  result: (turn: number, round: number, id: string): BlockPath => `turns/${turn}/rounds/${round}/results/${id}`,
  injected: (turn: number, round: number, i: number): BlockPath => `turns/${turn}/rounds/${round}/results/text-${i}`,
  tail: (i: number): BlockPath => `tail/${i}`,
  summary: (k: number): BlockPath => `summaries/${k}`,
  pruneNotice: (): BlockPath => 'notices/prune',
} as const;

const TURN_PATH = /^turns\/(\d+)\/(user\/\d+|rounds\/(\d+)\/(response|calls|results)\/[^/]+)$/;

/** Where a timeline path points, or undefined for non-timeline paths. */
export function parseTimelinePath(path: BlockPath): { turn: number; round?: number } | undefined {
  const m = TURN_PATH.exec(path);
  if (!m) return undefined;
  return m[3] === undefined ? { turn: Number(m[1]) } : { turn: Number(m[1]), round: Number(m[3]) };
}

/** The block at `path` in the state (hidden or not, compacted or not), or undefined. */
export function findBlock(state: TimelineState, path: BlockPath): Block | undefined {
  const loc = parseTimelinePath(path);
  if (loc) {
    const turn: Turn | undefined = state.turns[loc.turn - 1];
    if (!turn) return undefined;
    if (loc.round === undefined) return turn.user.find((b) => b.path === path);
    const round: Round | undefined = turn.rounds[loc.round - 1];
    if (!round) return undefined;
    return round.response.find((b) => b.path === path) ?? round.results.find((b) => b.path === path);
  }
  if (path.startsWith('envelope/instructions/')) return state.envelope.instructions.find((b) => b.path === path);
  if (path === 'envelope/skills') return state.envelope.skillCatalog;
  if (path.startsWith('tail/')) return state.tail.find((b) => b.path === path);
  if (path === paths.pruneNotice() && state.pruneNotice) return findNotice(state);
  return undefined;
}

/** The one-time prune notice: carried by the turn that was newest when it was first shown. */
function findNotice(state: TimelineState): Block | undefined {
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    for (let r = turn.rounds.length - 1; r >= 0; r--) {
      const hit = turn.rounds[r]!.results.find((b) => b.path === paths.pruneNotice());
      if (hit) return hit;
    }
    const hit = turn.user.find((b) => b.path === paths.pruneNotice());
    if (hit) return hit;
  }
  return undefined;
}

/** Every block of a turn, in stream order. */
export function* turnBlocks(turn: Turn): Generator<Block> {
  yield* turn.user;
  for (const round of turn.rounds) {
    yield* round.response;
    yield* round.results;
  }
}

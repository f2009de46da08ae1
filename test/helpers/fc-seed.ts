/** The seed of `npm test`'s property runs (any fixed integer: what matters is that it does not change between runs). */
export const DEFAULT_FC_SEED = 20_261_130;

let drawn: number | undefined;

/**
 * The seed fast-check uses where a test passes none: FC_SEED (an integer), else the fixed default.
 * FC_SEED=random draws one seed per worker process and prints it once, so any failure of that run replays.
 */
export function fastCheckSeed(value = process.env.FC_SEED): number {
  if (value === undefined || value === '') return DEFAULT_FC_SEED;
  if (value === 'random') {
    if (drawn === undefined) {
      drawn = (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
      process.stderr.write(`fast-check seed of this worker (pid ${process.pid}): FC_SEED=${drawn}\n`);
    }
    return drawn;
  }
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(value)}`);
  return seed;
}

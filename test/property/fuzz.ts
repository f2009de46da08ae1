/**
 * `npm run fuzz`: the property suite of test/property/timelines.test.ts at
 * scale (default 10,000 random sessions). Prints the count and what the runs
 * covered; on a failure, the seed and path that reproduce it, and exits 1.
 *
 *   FUZZ_RUNS=20000 npm run fuzz
 *   FUZZ_SEED=123 FUZZ_PATH=45:1:0 npm run fuzz     # replay one failure
 *   FUZZ_SEED=123 FUZZ_PATH=45:1:0 npx vitest run test/property/timelines.test.ts
 */
import fc from 'fast-check';
import { emptyStats, runScript, sessionScript } from './timelines.js';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`FUZZ_RUNS must be a positive integer, got ${process.env.FUZZ_RUNS}`);
  process.exit(2);
}

const stats = emptyStats();
let cases = 0;
const started = Date.now();
console.log(`fuzz: ${path ? `replaying path ${path} of` : `${runs.toLocaleString('en-US')} random sessions,`} seed ${seed}`);
const result = fc.check(
  fc.property(sessionScript, (script) => {
    cases++;
    if (cases % 1000 === 0)
      console.log(
        `  ${cases.toLocaleString('en-US')} sessions, ${stats.renders.toLocaleString('en-US')} renders, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
    runScript(script, stats);
  }),
  { numRuns: runs, seed, ...(path === undefined ? {} : { path }) },
);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (result.failed) {
  const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  const example = JSON.stringify(result.counterexample, (_k, v) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v));
  console.error(`fuzz: FAILED after ${result.numRuns} passing sessions (${result.numShrinks} shrinks, ${seconds} s): ${error}`);
  console.error(`counterexample (long strings cut): ${example.slice(0, 6000)}`);
  console.error(`reproduce: FUZZ_SEED=${result.seed} FUZZ_PATH=${result.counterexamplePath} npm run fuzz`);
  process.exit(1);
}
console.log(
  `fuzz: ${result.numRuns.toLocaleString('en-US')} random sessions passed in ${seconds} s (seed ${seed}): ` +
    `${stats.renders.toLocaleString('en-US')} requests validated, ${stats.stabilityChecks.toLocaleString('en-US')} prefix-stability checks, ` +
    `${stats.recalled.toLocaleString('en-US')} byte-identical recalls, ${stats.compactions.toLocaleString('en-US')} compactions, ${stats.prunes.toLocaleString('en-US')} prunes, ${stats.hides.toLocaleString('en-US')} hides, 0 throws`,
);

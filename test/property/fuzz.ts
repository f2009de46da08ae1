/**
 * `npm run fuzz`: the property suites at scale. Three parts, in order:
 * 1. random sessions through render (test/property/timelines.test.ts; default 10,000, FUZZ_RUNS);
 * 2. random sessions and loops through `prepare` (test/property/doors.test.ts; default 2,000, FUZZ_DOORS_RUNS);
 * 3. random sessions as AI SDK calls through the middleware, the real provider and the fake API
 *    (test/property/ai-sdk.test.ts; default 500, FUZZ_AI_SDK_RUNS);
 * 4. mutated traces through the CLI (test/cli/malformed-traces.test.ts; default 1,000, FUZZ_CLI_RUNS).
 * Prints the counts and what the runs covered; on a failure, the seed and path
 * that reproduce it, and exits 1. FUZZ_ONLY=sessions|doors|ai-sdk|cli runs one part.
 *
 *   FUZZ_RUNS=20000 npm run fuzz
 *   FUZZ_SEED=123 FUZZ_PATH=45:1:0 npm run fuzz     # replay one failure (of the part that printed it, with FUZZ_ONLY)
 *   FUZZ_SEED=123 FUZZ_PATH=45:1:0 npx vitest run test/property/timelines.test.ts
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { startFakeServer } from '../../src/testing/fake-server.js';
import { aiSdkScript, emptyAiSdkStats, runAiSdkScript } from './ai-sdk.js';
import { RedisConversationStore } from '../../src/conversation/redis-store.js';
import { nodeRedisClient } from '../../src/toolcache/stores/redis-node.js';
import { doorScript, emptyDoorStats, runDoorScript } from './doors.js';
import { emptyStats, runScript, sessionScript } from './timelines.js';

const runs = positiveRuns('FUZZ_RUNS', 10_000);
const seed = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;
const only = process.env.FUZZ_ONLY;
if (only !== undefined && !['sessions', 'doors', 'ai-sdk', 'cli'].includes(only)) {
  console.error(`FUZZ_ONLY must be sessions, doors, ai-sdk or cli, got ${only}`);
  process.exit(2);
}

function cut(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v)).slice(0, 6000);
}

/** A run count from the environment (a positive integer), else exit 2 naming the variable. */
function positiveRuns(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${name} must be a positive integer, got ${process.env[name]}`);
    process.exit(2);
  }
  return n;
}

/** On a failed check: the error, the counterexample and the command that replays it; exit 1. */
function exitIfFailed<T>(result: fc.RunDetails<T>, label: string, noun: string, seconds: string, onlyPart: string): void {
  if (!result.failed) return;
  const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  console.error(`${label}: FAILED after ${result.numRuns} passing ${noun} (${result.numShrinks} shrinks, ${seconds} s): ${error}`);
  console.error(`counterexample (long strings cut): ${cut(result.counterexample)}`);
  console.error(`reproduce: ${onlyPart}FUZZ_SEED=${result.seed} FUZZ_PATH=${result.counterexamplePath} npm run fuzz`);
  process.exit(1);
}

if (only === undefined || only === 'sessions') fuzzSessions();
if (only === undefined || only === 'doors') await fuzzDoors();
if (only === undefined || only === 'ai-sdk') await fuzzAiSdk();
if (only === undefined || only === 'cli') fuzzCli();

function fuzzSessions(): void {
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
  exitIfFailed(result, 'fuzz', 'sessions', seconds, '');
  console.log(
    `fuzz: ${result.numRuns.toLocaleString('en-US')} random sessions passed in ${seconds} s (seed ${seed}): ` +
      `${stats.renders.toLocaleString('en-US')} requests validated, ${stats.stabilityChecks.toLocaleString('en-US')} prefix-stability checks, ` +
      `${stats.recalled.toLocaleString('en-US')} byte-identical recalls, ${stats.compactions.toLocaleString('en-US')} compactions, ${stats.prunes.toLocaleString('en-US')} prunes, ${stats.hides.toLocaleString('en-US')} hides, 0 throws`,
  );
}

async function fuzzDoors(): Promise<void> {
  const doorRuns = positiveRuns('FUZZ_DOORS_RUNS', 2_000);
  const stats = emptyDoorStats();
  // With REDIS_URL, loops that draw the Redis conversation store run on it (else in memory).
  const client = process.env.REDIS_URL ? await nodeRedisClient({ url: process.env.REDIS_URL, commandTimeoutMs: 10_000 }) : undefined;
  const env = client ? { redis: (ns: string) => new RedisConversationStore({ client, namespace: `fuzz-${process.pid}-${ns}` }) } : {};
  let cases = 0;
  const started = Date.now();
  console.log(`fuzz doors: ${path ? `replaying path ${path} of` : `${doorRuns.toLocaleString('en-US')} random loops through prepare,`} seed ${seed}`);
  const result = await fc.check(
    fc.asyncProperty(doorScript, async (script) => {
      cases++;
      if (cases % 200 === 0)
        console.log(
          `  ${cases.toLocaleString('en-US')} loops, ${stats.requests.toLocaleString('en-US')} requests, ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
      await runDoorScript(script, stats, env);
    }),
    { numRuns: doorRuns, seed, ...(path === undefined ? {} : { path }) },
  );
  await client?.close();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  exitIfFailed(result, 'fuzz doors', 'loops', seconds, 'FUZZ_ONLY=doors ');
  console.log(
    `fuzz doors: ${result.numRuns.toLocaleString('en-US')} random loops passed in ${seconds} s (seed ${seed}): ` +
      `${stats.requests.toLocaleString('en-US')} prepared requests validated, ${stats.sameBytes.toLocaleString('en-US')} byte-identical to the Session path, ` +
      `${stats.resyncs.toLocaleString('en-US')} expected resyncs, ${stats.contentChecks.toLocaleString('en-US')} content checks against a fresh conversation, ` +
      `${stats.prefills.toLocaleString('en-US')} prefills, ${stats.roundTrips.toLocaleString('en-US')} store round trips, ${stats.redisRequests.toLocaleString('en-US')} requests on Redis${client ? '' : ' (no REDIS_URL)'}, ${stats.usageRecorded.toLocaleString('en-US')} usages recorded, ${stats.recalled.toLocaleString('en-US')} byte-identical recalls, 0 throws`,
  );
}

async function fuzzAiSdk(): Promise<void> {
  const aiRuns = positiveRuns('FUZZ_AI_SDK_RUNS', 500);
  const stats = emptyAiSdkStats();
  const server = await startFakeServer({ now: () => 0 });
  const started = Date.now();
  console.log(`fuzz ai-sdk: ${path ? `replaying path ${path} of` : `${aiRuns.toLocaleString('en-US')} random sessions as AI SDK calls,`} seed ${seed}`);
  try {
    const result = await fc.check(
      fc.asyncProperty(aiSdkScript, (script) => runAiSdkScript(script, server, stats)),
      { numRuns: aiRuns, seed, ...(path === undefined ? {} : { path }) },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    exitIfFailed(result, 'fuzz ai-sdk', 'sessions', seconds, 'FUZZ_ONLY=ai-sdk ');
    console.log(
      `fuzz ai-sdk: ${result.numRuns.toLocaleString('en-US')} random sessions passed in ${seconds} s (seed ${seed}): ` +
        `${stats.calls.toLocaleString('en-US')} calls through the middleware and the provider accepted by the fake API, ` +
        `${stats.wireChecks.toLocaleString('en-US')} with the rendered bytes on the wire, ${stats.markers.toLocaleString('en-US')} markers (never more than 4 a call)`,
    );
  } finally {
    await server.close();
  }
}

/** The CLI fuzz (a vitest file: it drives main() with its own harness) at a larger count. */
function fuzzCli(): void {
  const cliRuns = positiveRuns('FUZZ_CLI_RUNS', 1_000);
  console.log(`fuzz cli: ${cliRuns.toLocaleString('en-US')} mutated traces through replay, render and simulate, seed ${seed}`);
  const started = Date.now();
  const r = spawnSync('npx', ['vitest', 'run', 'test/cli/malformed-traces.test.ts', '-t', 'mutated traces'], {
    stdio: 'inherit',
    env: { ...process.env, CLI_FUZZ_RUNS: String(cliRuns), CLI_FUZZ_SEED: String(seed) },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`fuzz cli: FAILED (${seconds} s); reproduce: FUZZ_ONLY=cli FUZZ_SEED=${seed} FUZZ_CLI_RUNS=${cliRuns} npm run fuzz`);
    process.exit(1);
  }
  console.log(
    `fuzz cli: ${cliRuns.toLocaleString('en-US')} mutated traces passed in ${seconds} s (seed ${seed}): a status, one line naming file:line, no stack trace`,
  );
}

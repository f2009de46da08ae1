import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Suites that need a service: a test file that imports the Redis test server
 * (test/toolcache/redis-fixtures/server.ts) needs `redis-server` on the PATH or
 * a REDIS_URL. Outside CI, when neither is there, those files are skipped with
 * one loud line saying which and how to install it; with CI=true they run (and
 * a missing service fails them), never a skip.
 */
function redisSuites(dir = 'test'): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...redisSuites(path));
    else if (entry.name.endsWith('.test.ts') && /redis-fixtures\/server(\.js)?['"]/.test(readFileSync(path, 'utf8'))) out.push(path);
  }
  return out;
}

function redisAvailable(): boolean {
  if (process.env.REDIS_URL) return true;
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error === undefined;
}

const skipped = process.env.CI !== 'true' && !redisAvailable() ? redisSuites() : [];
if (skipped.length > 0) {
  process.stderr.write(
    `\n*** SKIPPED ${skipped.length} test files that need Redis (redis-server is not on the PATH and REDIS_URL is unset): ${skipped.join(', ')}. ` +
      'Install it (apt install redis-server, or brew install redis) or set REDIS_URL=redis://host:port to run them. With CI=true they never skip. ***\n\n',
  );
}

/**
 * The files that take longest (CPU or waiting on child processes), slowest first. They start first, so
 * the two workers finish together instead of one idling while the other runs a late 10-second file.
 * Vitest orders by the durations of the previous run when it has them, and by file size in a fresh
 * clone, where a small file that drives a big harness (the property suite) would start last.
 */
const HEAVY = [
  'test/toolcache/redis-multiprocess.test.ts', // mostly waiting on its child processes: overlaps the CPU-bound ones
  'test/docs/code-blocks.test.ts',
  'test/property/timelines.test.ts',
  'test/cli/malformed-traces.test.ts',
  'test/fixtures.test.ts',
  'test/property/ai-sdk.test.ts',
  'test/replay/providers.test.ts',
  'test/tokens/bpe.test.ts',
  'test/report/render-report.test.ts',
  'test/property/doors.test.ts',
  'test/property/doors-redis.test.ts',
  'test/conversation/differential.test.ts',
];

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = HEAVY.indexOf(relative(f.project.config.root, f.moduleId).replaceAll('\\', '/'));
      return i < 0 ? HEAVY.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', ...skipped],
    snapshotSerializers: ['./src/testing/vitest-serializer.ts'],
    // Test files share each worker's module cache instead of importing src/ and its packages again for
    // every file (that cost ~0.6 s of CPU per file: 70 of the suite's 174 s). Files keep no state
    // between them: test/helpers/setup.ts restores timers, mocks, globals and env after each file.
    isolate: false,
    setupFiles: ['./test/helpers/setup.ts'],
    // Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine, where
    // much of the suite waits (child processes, Redis round trips, a browser) while a core is free.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: HeavyFirst },
    // A hang detector, not a speed test (speed lives in `npm run bench`): the CPU-heavy tests take 3-10 s alone and
    // up to 3x that on a machine loaded by other jobs (measured: the ±2 % estimate test 16.9 s, a property test 33 s
    // under load 15 on 2 cores), so the limit leaves room for that.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

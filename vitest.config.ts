import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', ...skipped],
    snapshotSerializers: ['./src/testing/vitest-serializer.ts'],
    // Test files share each worker's module cache instead of importing src/ and its packages again for
    // every file (isolation cost ~0.6 s of CPU per file, two thirds of the suite's). Files keep no state
    // between them: test/helpers/setup.ts restores timers, mocks, globals and env after each file.
    isolate: false,
    setupFiles: ['./test/helpers/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

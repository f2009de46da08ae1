/**
 * The offline AI SDK example (`npm run example:ai-sdk`) runs end to end: the
 * real `ai` streamText loop with cachepointMiddleware fixes math.ts against the
 * fake server, prints the conversation's stats, and costs less than the same
 * conversation without cachepoint.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runNode, SPAWN_TIMEOUT_MS } from './run.js';

describe('docs/examples/ai-sdk-agent.ts', () => {
  it('is the npm script example:ai-sdk', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['example:ai-sdk']).toBe('tsx docs/examples/ai-sdk-agent.ts');
  });

  it(
    'exits 0, fixes math.ts, reads the cache, and beats the same loop without cachepoint',
    async () => {
      const r = await runNode('docs/examples/ai-sdk-agent.ts');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[Edit {"path":"math.ts"');
      const start = r.stdout.indexOf('math.ts now:\n');
      expect(start).toBeGreaterThanOrEqual(0);
      expect(r.stdout.slice(start).split('\n\n')[0]).toContain('return a + b;');
      const stats = /hit ratio (\d+(?:\.\d+)?)%/.exec(r.stdout);
      expect(Number(stats?.[1])).toBeGreaterThan(50);
      const bill = /without cachepoint: \$(\d+\.\d+) for the same (\d+) requests; with: \$(\d+\.\d+)/.exec(r.stdout);
      expect(bill, 'the bill line').not.toBeNull();
      expect(Number(bill![2])).toBe(6);
      expect(Number(bill![3])).toBeLessThan(Number(bill![1]));
    },
    SPAWN_TIMEOUT_MS,
  );
});

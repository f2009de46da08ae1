/**
 * The offline coding-agent example (`npm run example`) runs end to end: the
 * agent fixes math.ts through the real SDK against the fake server, and the
 * session's stats show that the cache was read and money was saved.
 */
import { describe, expect, it } from 'vitest';
import { runNode } from './run.js';

describe('docs/examples/coding-agent.ts', () => {
  it('exits 0, fixes math.ts, and reports a hit ratio and a saving', async () => {
    const r = await runNode('docs/examples/coding-agent.ts');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    // The file as the example prints it at the end, up to the first blank line.
    const start = r.stdout.indexOf('math.ts now:\n');
    expect(start).toBeGreaterThanOrEqual(0);
    const mathTs = r.stdout.slice(start + 'math.ts now:\n'.length).split('\n\n')[0]!;
    expect(mathTs).toContain('export function add(a: number, b: number)');
    expect(mathTs).toContain('return a + b;');
    expect(mathTs).not.toContain('return a - b;');

    // total: 9,982 read, 1,701 written, 272 uncached; hit ratio 83.5%; $0.0102 vs $0.0359 without caching (71.6% saved)
    const stats = /hit ratio (\d+(?:\.\d+)?)%; \$(\d+\.\d+) vs \$(\d+\.\d+) without caching \((\d+(?:\.\d+)?)% saved\)/.exec(r.stdout);
    expect(stats, 'the stats line').not.toBeNull();
    const [, hitRatio, cost, uncachedCost, saved] = stats!.map(Number);
    expect(hitRatio).toBeGreaterThan(0);
    expect(hitRatio).toBeLessThanOrEqual(100);
    expect(saved).toBeGreaterThan(0);
    expect(cost).toBeLessThan(uncachedCost!);
    // The printed saving is the printed costs' ratio (both rounded for display).
    expect(Math.abs(saved! - 100 * (1 - cost! / uncachedCost!))).toBeLessThan(1);
  });
});

/**
 * Any SDK version: the packed tarball (`npm pack`) installed in a fresh project
 * next to the oldest and the latest @anthropic-ai/sdk we support. The project
 * typechecks an existing-style loop (strict, skipLibCheck off, so our .d.ts
 * must agree with that SDK's types) and runs it against the fake Messages API:
 * 3 turns / 12 rounds through `prepare`, cache reads on every request after the
 * first, ≤ 4 markers, the same bytes as the Session path, and one SDK copy only.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const RANGE = pkg.peerDependencies['@anthropic-ai/sdk']!;
/** The oldest and the latest supported versions: the ends of the peer range. */
const OLDEST = /^>=(\S+)/.exec(RANGE)![1]!;
const LATEST = '1.14.0';
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let work: string;
let tarball: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cachepoint-consumer-'));
  npm(['run', 'build'], ROOT);
  const out = npm(['pack', '--pack-destination', work, '--silent'], ROOT).trim().split('\n').at(-1)!;
  tarball = join(work, out);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface LoopReport {
  requests: number;
  statuses: number[];
  reads: number[];
  markers: number[];
  sameBytesAsSession: boolean;
  firstDifference: number;
  recorded: number;
}

describe('the packed package next to each supported SDK', () => {
  it('the peer range names the versions this test installs', () => {
    expect(RANGE).toBe(`>=${OLDEST} <2`);
    expect(readdirSync(work).some((f) => f.endsWith('.tgz'))).toBe(true);
  });

  for (const version of [OLDEST, LATEST]) {
    it(`@anthropic-ai/sdk@${version}: typechecks, runs 12 rounds through prepare, reads cache after the first`, () => {
      const dir = join(work, `sdk-${version}`);
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { cachepoint: `file:${tarball}`, '@anthropic-ai/sdk': version } }),
      );
      npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], dir);
      // One SDK: the consumer's (cachepoint does not bring its own copy).
      expect(existsSync(join(dir, 'node_modules', 'cachepoint', 'node_modules', '@anthropic-ai', 'sdk'))).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'node_modules', '@anthropic-ai', 'sdk', 'package.json'), 'utf8')).version).toBe(version);
      copyFileSync(join(ROOT, 'test', 'consumer', 'project', 'loop.ts'), join(dir, 'loop.ts'));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: false, outDir: 'out', types: [] },
          files: ['loop.ts'],
        }),
      );
      let tsc = '';
      try {
        tsc = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
      } catch (err) {
        tsc = String((err as { stdout?: string }).stdout ?? err);
      }
      expect(
        tsc
          .split('\n')
          .filter((l) => l.includes('error TS'))
          .slice(0, 10),
      ).toEqual([]);
      const report = JSON.parse(
        execFileSync(process.execPath, [join(dir, 'out', 'loop.js')], { cwd: dir, encoding: 'utf8' })
          .trim()
          .split('\n')
          .at(-1)!,
      ) as LoopReport;
      expect(report.requests).toBe(12);
      expect(report.statuses.every((s) => s === 200)).toBe(true);
      expect(report.reads[0]).toBe(0);
      for (const [i, r] of report.reads.entries()) if (i > 0) expect(r, `request ${i}`).toBeGreaterThan(0);
      expect(Math.max(...report.markers)).toBeLessThanOrEqual(4);
      expect(report.firstDifference).toBe(-1);
      expect(report.sameBytesAsSession).toBe(true);
      expect(report.recorded).toBe(12);
    });
  }
});

/**
 * Any SDK version: the packed tarball (`npm pack`) installed in a fresh project
 * next to the oldest and the latest @anthropic-ai/sdk we support. The project
 * typechecks an existing-style loop and sdk-types.ts (strict, skipLibCheck
 * off, so our .d.ts must agree with that SDK's types) and runs the loop against the fake Messages API:
 * 3 turns / 12 rounds through `prepare`, cache reads on every request after the
 * first, ≤ 4 markers, the same bytes as the Session path, and one SDK copy only.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, pack, ROOT, runReport, typeErrors, type Packed } from './project.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const RANGE = pkg.peerDependencies['@anthropic-ai/sdk']!;
/** The oldest and the latest supported versions: the ends of the peer range. */
const OLDEST = /^>=(\S+)/.exec(RANGE)![1]!;
const LATEST = '1.16.0';

let packed: Packed;
beforeAll(() => {
  packed = pack('cachepoint-consumer-');
});
afterAll(() => packed?.remove());

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
    expect(readdirSync(packed.work).some((f) => f.endsWith('.tgz'))).toBe(true);
  });

  for (const version of [OLDEST, LATEST]) {
    it(`@anthropic-ai/sdk@${version}: typechecks, runs 12 rounds through prepare, reads cache after the first`, () => {
      // sdk-types.ts: that SDK's own types into every door, and what they give back into its create (compiled only).
      // The strictest flags a user may have: our .d.ts and each SDK's own compile under them (the no-SDK project
      // cannot: ai's .d.ts do not compile with exactOptionalPropertyTypes and skipLibCheck off).
      const strictest = { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
      const dir = install(packed, `sdk-${version}`, { '@anthropic-ai/sdk': version }, ['loop.ts', 'sdk-types.ts'], [], strictest);
      // One SDK: the consumer's (cachepoint does not bring its own copy).
      expect(existsSync(join(dir, 'node_modules', 'cachepoint', 'node_modules', '@anthropic-ai', 'sdk'))).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'node_modules', '@anthropic-ai', 'sdk', 'package.json'), 'utf8')).version).toBe(version);
      expect(typeErrors(dir)).toEqual([]);
      const report = runReport<LoopReport>(dir, 'loop.ts');
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

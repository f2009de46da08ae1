import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolResponse } from './build.js';
import { DEFAULT_FC_SEED, fastCheckSeed } from './fc-seed.js';

/** Built while the file is collected, before any hook: the numbering restarted for this file all the same. */
const first = toolResponse(1, false)[0];

describe('the fast-check seed of the suite (test/helpers/setup.ts)', () => {
  it('is the one FC_SEED gives, the fixed default without it', () => {
    expect(fc.readConfigureGlobal().seed).toBe(fastCheckSeed());
    expect(fastCheckSeed('')).toBe(DEFAULT_FC_SEED);
    expect(fastCheckSeed('-42')).toBe(-42);
    expect(Number.isSafeInteger(fastCheckSeed('random'))).toBe(true);
    expect(() => fastCheckSeed('1.5')).toThrow(/FC_SEED must be an integer or "random", got "1.5"/);
  });

  it('makes two runs of a property without a seed draw the same cases', () => {
    const draw = (): number[] => fc.sample(fc.integer(), 20);
    expect(draw()).toEqual(draw());
  });
});

describe('the tool-use numbering of test/helpers/build.ts', () => {
  it('starts at 1 in every file, whichever files ran before in the worker', () => {
    expect(first).toMatchObject({ type: 'tool_use', id: 'toolu_0001' });
  });
});

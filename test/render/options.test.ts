import { describe, expect, it } from 'vitest';
import { InvalidOptionError, TtlOrderError } from '../../src/errors.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { pruneDefaults, resolveRenderOptions } from '../../src/render/options.js';
import { render, renderAsync } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { session } from '../helpers/build.js';

/** Calls `f` and returns what it threw. */
function thrown(f: () => unknown): InvalidOptionError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidOptionError);
    return e as InvalidOptionError;
  }
  throw new Error('expected a throw');
}

describe('resolveRenderOptions', () => {
  // The options issue 13 found accepted (and silently ignored or mis-applied).
  it.each<[string, Record<string, unknown>, string]>([
    ['preTailOffset', { preTailOffset: -1 }, 'preTailOffset: must be an integer in [0, 1000], got -1'],
    [
      'compact.target',
      { compact: { target: 0.95 } },
      'compact.target: compact.target (0.95) must be below compact.threshold (0.9): compaction starts at the threshold and stops under the target',
    ],
    [
      'compact.threshold',
      { compact: { threshold: 0.5 } },
      'compact.threshold: compact.target (0.6) must be below compact.threshold (0.5): compaction starts at the threshold and stops under the target',
    ],
    ['policy', { policy: 'cheap' }, `policy: must be one of 'conservative', 'economy', got "cheap"`],
    ['ttl', { ttl: '10m' }, 'ttl: must be an object with keys envelope, previousTurn, preTail, tail, got "10m"'],
    ['ttl.tail', { ttl: { tail: '10m' } }, `ttl.tail: must be one of '5m', '1h', got "10m"`],
    [
      'polcy',
      { polcy: 'economy' },
      'polcy: unknown option (did you mean policy?); accepted: profile, profiles, now, preTailOffset, ttl, adaptiveTtl, prune, compact, policy, tokens, expectedRemaining, tokenFactor, summarizer, summarizerTimeoutMs',
    ],
    [
      'prune.keeprounds',
      { prune: { keeprounds: 3 } },
      'prune.keeprounds: unknown option (did you mean prune.keepRounds?); accepted: keepTurns, keepRounds, minChars, enabled, reuse, recallPenaltyTokens',
    ],
    ['now', { now: Number.NaN }, 'now: must be a time in ms since the epoch (a finite number), got NaN'],
    ['now', { now: Infinity }, 'now: must be a time in ms since the epoch (a finite number), got Infinity'],
    ['prune.keepTurns', { prune: { keepTurns: 1.5 } }, 'prune.keepTurns: must be an integer ≥ 0, got 1.5'],
    ['prune.enabled', { prune: { enabled: 'no' } }, 'prune.enabled: must be true or false, got "no"'],
    ['compact.threshold', { compact: { threshold: 1.2 } }, 'compact.threshold: must be a fraction in (0, 1], got 1.2'],
    ['tokenFactor', { tokenFactor: 0 }, 'tokenFactor: must be a finite factor > 0, got 0'],
    ['expectedRemaining', { expectedRemaining: -3 }, 'expectedRemaining: must be a number of requests ≥ 0, got -3'],
    ['summarizerTimeoutMs', { summarizerTimeoutMs: 0 }, 'summarizerTimeoutMs: must be a number of ms > 0, got 0'],
    ['summarizer', { summarizer: () => 'x' }, 'summarizer: must be a Summarizer ({ name, summarize }), got a function'],
    ['adaptiveTtl', { adaptiveTtl: 1 }, 'adaptiveTtl: must be true or false, got 1'],
    ['profile.contextWindow', { profile: { id: 'x', contextWindow: -5 } }, 'profile.contextWindow: must be an integer ≥ 1, got -5'],
    ['options', [] as unknown as Record<string, unknown>, 'options: must be an object of render options, got an array'],
  ])('refuses %s with a typed error naming the option, the value and the range', (option, options, message) => {
    const e = thrown(() => resolveRenderOptions(options));
    expect(e.option).toBe(option);
    expect(e.message).toBe(message);
    expect(e.code).toBe('invalid_option');
  });

  it('carries the refused value and the accepted range as fields', () => {
    const e = thrown(() => resolveRenderOptions({ preTailOffset: -1 }));
    expect(e.value).toBe(-1);
    expect(e.expected).toBe('an integer in [0, 1000]');
  });

  it('refuses TTLs that grow towards the tail as a TtlOrderError (an InvalidOptionError)', () => {
    const e = thrown(() => resolveRenderOptions({ ttl: { envelope: '5m', tail: '1h' } }));
    expect(e).toBeInstanceOf(TtlOrderError);
    expect(e.code).toBe('ttl_order');
    expect(e.option).toBe('ttl');
  });

  it('resolves every default once, and treats undefined as absent', () => {
    const o = resolveRenderOptions({ now: 5, policy: undefined, prune: { keepTurns: 1, minChars: undefined } });
    expect(o.now).toBe(5);
    expect(o.policy).toBe('conservative');
    expect(o.prune).toEqual({ ...pruneDefaults('conservative'), keepTurns: 1 });
    expect(o.prune).toMatchObject({ keepRounds: 8, minChars: 1000, enabled: true, reuse: true });
    expect(o.compact).toEqual({ threshold: 0.9, target: 0.6, enabled: true });
    expect(o.preTailOffset).toBe(4);
    expect(o.ttl).toBeUndefined();
    expect(Object.isFrozen(o)).toBe(true);
    const economy = resolveRenderOptions({ now: 0, policy: 'economy', prune: { enabled: false } });
    expect(economy.prune).toEqual({ ...pruneDefaults('economy'), enabled: false });
    expect(economy.pruneOnCompaction).toEqual({ ...pruneDefaults('conservative'), enabled: false });
  });

  it('accepts every option the type declares', () => {
    const all: Required<Omit<RenderOptions, 'profile' | 'profiles' | 'tokens' | 'summarizer'>> = {
      now: 0,
      preTailOffset: 0,
      ttl: { envelope: '1h', previousTurn: '1h', preTail: '5m', tail: '5m' },
      adaptiveTtl: true,
      prune: { keepTurns: 0, keepRounds: 0, minChars: 0, enabled: true },
      compact: { threshold: 1, target: 0.1, enabled: false },
      policy: 'economy',
      expectedRemaining: 0,
      tokenFactor: 1.2,
      summarizerTimeoutMs: 10,
    };
    expect(() => resolveRenderOptions(all)).not.toThrow();
  });
});

describe('render entry points validate their options', () => {
  const s = session([2, 3]);
  it.each([
    ['render', () => render(s, { polcy: 'economy' } as RenderOptions)],
    ['renderAsync', () => renderAsync(s, { now: Number.NaN })],
    ['hideBlock', () => hideBlock(s, 'turns/2/rounds/1/results/x', { now: 0, defer: 'yes' } as never)],
  ])('%s refuses a bad option before doing anything', async (_name, f) => {
    await expect(async () => f()).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('hideBlock accepts its own keys (note, defer, force) and render does not', () => {
    const path = s.turns[1]!.rounds[0]!.results[0]!.path;
    expect(() => hideBlock(s, path, { now: 0, note: 'old', defer: true, force: false })).not.toThrow();
    expect(() => render(s, { now: 0, defer: true } as RenderOptions)).toThrow(/defer: unknown option/);
  });
});

/**
 * Type tests of the public surface (`cachepoint`, `cachepoint/testing`,
 * `cachepoint/redis`): what a caller's code may rely on at compile time.
 * Checked by `npm run typecheck` (tsconfig includes test/): a failed
 * `expectTypeOf` is a type error there. Nothing here runs.
 */
import type { AnthropicRequestParams } from '../src/providers/anthropic-types.js';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type CachePoint,
  type ConversationRecord,
  type PreparePlan,
  type CacheStatus,
  type Decision,
  type Rendered,
  type RenderOptions,
  type StreamBlock,
  type TimelineState,
  type ToolCallResult,
  appendResponse,
  type CachepointError,
  createTimeline,
  hideBlock,
  type InvalidOptionError,
  priceUsage,
  recall,
  render,
  renderAsync,
  startTurn,
  type ToolCache,
  toAnthropic,
} from '../src/index.js';
import type { RedisToolCacheStore } from '../src/toolcache/stores/redis.js';
import { assertPrefixStable, startFakeServer, type FakeMessagesServer } from '../src/testing/index.js';

describe('rendering', () => {
  it('renders a state to a Rendered whose state feeds the next edit', () => {
    expectTypeOf(render).parameter(0).toEqualTypeOf<TimelineState>();
    expectTypeOf(render).parameter(1).toEqualTypeOf<RenderOptions | undefined>();
    expectTypeOf(render).returns.toEqualTypeOf<Rendered>();
    expectTypeOf(renderAsync).returns.toEqualTypeOf<Promise<Rendered>>();
    expectTypeOf<Rendered['state']>().toEqualTypeOf<TimelineState>();
    expectTypeOf(appendResponse).returns.toEqualTypeOf<TimelineState>();
    expectTypeOf(startTurn).returns.toEqualTypeOf<TimelineState>();
    expectTypeOf(createTimeline).returns.toEqualTypeOf<TimelineState>();
  });

  it('maps a Rendered to the SDK request type', () => {
    expectTypeOf(toAnthropic).returns.toEqualTypeOf<AnthropicRequestParams>();
  });

  it('keeps state, stream and cache points read-only', () => {
    expectTypeOf<Rendered['stream']>().toEqualTypeOf<readonly StreamBlock[]>();
    expectTypeOf<Rendered['cachePoints']>().toEqualTypeOf<readonly CachePoint[]>();
    expectTypeOf<TimelineState['turns']>().toExtend<readonly unknown[]>();
    // @ts-expect-error: the state is immutable
    ({}) as TimelineState satisfies { turns: unknown[] } as never;
  });

  it('labels cache points ⓪..④ and TTLs as the API spells them', () => {
    expectTypeOf<CachePoint['labels'][number]>().toEqualTypeOf<0 | 1 | 2 | 3 | 4>();
    expectTypeOf<CachePoint['ttl']>().toEqualTypeOf<'5m' | '1h'>();
  });

  it('reports decisions as a union discriminated by type', () => {
    expectTypeOf<Decision['type']>().toEqualTypeOf<'hide' | 'prune' | 'compact' | 'defer' | 'notice'>();
    expectTypeOf<Extract<Decision, { type: 'compact' }>>().toHaveProperty('fromTurn').toEqualTypeOf<number>();
  });

  it('refuses unknown option keys and wrong policy names at compile time', () => {
    // @ts-expect-error: a misspelled option
    render({} as TimelineState, { polcy: 'economy' });
    // @ts-expect-error: no such policy
    render({} as TimelineState, { policy: 'cheap' });
    expectTypeOf<NonNullable<RenderOptions['policy']>>().toEqualTypeOf<'conservative' | 'economy'>();
  });

  it('hides and recalls by path', () => {
    expectTypeOf(hideBlock).parameter(1).toEqualTypeOf<string>();
    expectTypeOf(recall).parameters.toEqualTypeOf<[TimelineState, string]>();
  });
});

describe('prepare', () => {
  it('reports the prefill tokens in the plan; the envelope digest of a record may be absent in process', () => {
    expectTypeOf<PreparePlan['prefillTokens']>().toEqualTypeOf<number | undefined>();
    // Computed only when needed (export, a changed envelope): a store must not count on it.
    expectTypeOf<ConversationRecord['envelope']>().toEqualTypeOf<{ readonly model: string; readonly system: string; readonly tools: string } | undefined>();
  });
});

describe('pricing', () => {
  it('prices a usage into per-field dollars', () => {
    expectTypeOf(priceUsage).returns.toHaveProperty('total').toEqualTypeOf<number>();
    expectTypeOf(priceUsage).returns.toHaveProperty('output').toEqualTypeOf<number>();
  });
});

describe('tool cache', () => {
  it('answers a call with a result whose cache status is a discriminated union', () => {
    expectTypeOf<ToolCache['call']>().returns.toEqualTypeOf<Promise<ToolCallResult>>();
    expectTypeOf<ToolCallResult['cache']>().toEqualTypeOf<CacheStatus>();
    expectTypeOf<CacheStatus['type']>().toEqualTypeOf<'hit' | 'miss' | 'shared' | 'bypass' | 'write'>();
  });

  it('takes the Redis store from cachepoint/redis as a tool-cache store', () => {
    expectTypeOf<RedisToolCacheStore>().toExtend<ToolCache['store']>();
  });
});

describe('errors', () => {
  it('derives every error from CachepointError with a code', () => {
    expectTypeOf<InvalidOptionError>().toExtend<CachepointError>();
    expectTypeOf<CachepointError['code']>().toExtend<string>();
  });
});

describe('cachepoint/testing', () => {
  it('starts a fake Messages API and checks prefix stability', () => {
    expectTypeOf(startFakeServer).returns.toEqualTypeOf<Promise<FakeMessagesServer>>();
    expectTypeOf<FakeMessagesServer['url']>().toEqualTypeOf<string>();
    expectTypeOf(assertPrefixStable).returns.toEqualTypeOf<void>();
  });
});

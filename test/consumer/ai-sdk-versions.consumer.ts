/**
 * Every supported AI SDK major: the packed tarball installed in a fresh
 * project next to the oldest and the latest `ai` of each major we support,
 * with the `@ai-sdk/anthropic` major made for it (ai 5 + anthropic 2, ai 6 +
 * anthropic 3, ai 7 + anthropic 4). The project compiles project/ai-sdk-loop.ts
 * (strict, skipLibCheck off: our .d.ts are checked against that `ai`'s own
 * middleware types) and runs a generateText and a streamText tool loop through
 * `cachepointMiddleware` against the fake Messages API: 3 turns / 12 requests
 * each, cache reads on every request after the first, ≤ 4 markers, no
 * warnings, no resync, the usage of every request recorded; and a call with
 * the caller's own cacheControl gets the engine's markers instead, with a
 * warning in the call's own `warnings`.
 *
 * The latest `ai` 7 project also installs the latest `openai` SDK and runs
 * the OpenAI mappers as docs/providers.md shows them (project/openai-loop.ts;
 * the repository's own tests use the `openai` devDependency).
 *
 * The latest release of each major also installs the `@ai-sdk/amazon-bedrock`
 * and `@ai-sdk/openai` majors made for it and runs project/ai-sdk-providers.ts:
 * a Converse loop, OpenAI Responses and Chat loops on GPT-5.6 (markers) and a
 * Claude loop through the AI Gateway (`createGateway`) through the middleware, each request reading more than the one before (the
 * repository's own tests run those providers on ai 7 only).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, pack, ROOT, runReport, typeErrors, type Packed } from './project.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * Per supported `ai` major: its `@ai-sdk/anthropic` major, and the latest versions of both (registry, 2026-12-01);
 * with the latest `@ai-sdk/amazon-bedrock` and `@ai-sdk/openai` of the majors made for it (registry, 2026-12-02).
 */
const MAJORS = [
  { ai: 5, anthropic: 2, latest: { ai: '5.0.277', anthropic: '2.0.112' }, providers: { '@ai-sdk/amazon-bedrock': '3.0.137', '@ai-sdk/openai': '2.0.131' } },
  { ai: 6, anthropic: 3, latest: { ai: '6.0.326', anthropic: '3.0.140' }, providers: { '@ai-sdk/amazon-bedrock': '4.0.186', '@ai-sdk/openai': '3.0.141' } },
  { ai: 7, anthropic: 4, latest: { ai: '7.0.173', anthropic: '4.0.105' }, providers: { '@ai-sdk/amazon-bedrock': '5.0.101', '@ai-sdk/openai': '4.0.118' } },
] as const;
const OPENAI_LATEST = '7.59.0';

const rangeOf = (majors: readonly number[]) => majors.map((m) => `^${m}.0.0`).join(' || ');

let packed: Packed;
beforeAll(() => {
  packed = pack('cachepoint-ai-sdk-');
});
afterAll(() => packed?.remove());

interface Loop {
  requests: number;
  statuses: number[];
  reads: number[];
  markers: number[];
  warnings: string[];
  resyncs: number;
  recorded: number;
  cacheRead: number;
  deltas: number;
  messages: number;
  eager: boolean[];
}

interface Own {
  codes: string[];
  callWarnings: number;
  status: number;
  markers: number;
}

function expectSaved(loop: Loop, label: string): void {
  expect(loop.requests, label).toBe(12);
  expect(loop.statuses.every((s) => s === 200)).toBe(true);
  expect(loop.warnings).toEqual([]);
  expect(loop.resyncs).toBe(0);
  expect(loop.reads[0]).toBe(0);
  for (const [i, r] of loop.reads.entries()) if (i > 0) expect(r, `${label}, request ${i}`).toBeGreaterThan(0);
  expect(Math.max(...loop.markers)).toBeLessThanOrEqual(4);
  expect(Math.min(...loop.markers)).toBeGreaterThanOrEqual(2);
  // Every request's usage went back into the conversation (Anthropic's own numbers, from providerMetadata).
  expect(loop.recorded).toBe(12);
  expect(loop.cacheRead).toBe(loop.reads.reduce((a, b) => a + b, 0));
  // 3 turns of (user, 3 × (assistant, tool), assistant): what the loop kept of every step.
  expect(loop.messages).toBe(24);
}

describe('cachepoint/ai-sdk next to each supported ai + @ai-sdk/anthropic', () => {
  it('the peer ranges name exactly the majors this test installs', () => {
    expect(pkg.peerDependencies['ai']).toBe(rangeOf(MAJORS.map((m) => m.ai)));
    expect(pkg.peerDependencies['@ai-sdk/anthropic']).toBe(rangeOf(MAJORS.map((m) => m.anthropic)));
    // The repository's own tests run on the newest major.
    expect(pkg.devDependencies['ai']).toMatch(/^\^7\./);
  });

  const cases = MAJORS.flatMap((m) => [
    { ai: `${m.ai}.0.0`, anthropic: `${m.anthropic}.0.0`, openai: undefined, providers: undefined },
    { ai: m.latest.ai, anthropic: m.latest.anthropic, openai: m.ai === 7 ? OPENAI_LATEST : undefined, providers: m.providers },
  ]);
  for (const c of cases) {
    const extra = [...(c.openai ? [`openai@${c.openai}`] : []), ...Object.entries(c.providers ?? {}).map(([n, v]) => `${n}@${v}`)];
    const title = `ai@${c.ai} + @ai-sdk/anthropic@${c.anthropic}${extra.length > 0 ? ` (+ ${extra.join(', ')})` : ''}`;
    it(`${title}: typechecks, and generateText / streamText loops read the cache after the first request`, () => {
      const files = ['ai-sdk-loop.ts', ...(c.openai ? ['openai-loop.ts'] : []), ...(c.providers ? ['ai-sdk-providers.ts'] : [])];
      const dir = install(
        packed,
        `ai-${c.ai}`,
        {
          ai: c.ai,
          '@ai-sdk/anthropic': c.anthropic,
          ...(c.openai ? { openai: c.openai } : {}),
          ...c.providers,
          // What `ai`'s own .d.ts need under skipLibCheck off (node:http, Buffer, json-schema): the consumer's, not ours.
          '@types/node': pkg.devDependencies['@types/node']!,
          '@types/json-schema': '^7',
        },
        files,
        ['node'],
      );
      for (const [name, version] of [
        ['ai', c.ai],
        ['@ai-sdk/anthropic', c.anthropic],
      ] as const) {
        expect(JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version).toBe(version);
      }
      expect(typeErrors(dir)).toEqual([]);
      const report = runReport<{ generate: Loop; stream: Loop; switch: Loop; own: Own }>(dir, 'ai-sdk-loop.ts');
      expectSaved(report.generate, 'generateText');
      expectSaved(report.stream, 'streamText');
      expect(report.stream.deltas).toBeGreaterThan(0);
      // generateText, streamText, generateText in one conversation. @ai-sdk/anthropic 2.x (ai 5) sends a streamed
      // call's tools as an unstreamed one's: nothing changes, nothing to say, every request reads. 3.0.140 (ai 6's
      // latest) and 4.x add eager_input_streaming to them, so the tools change at the first switch (the fake server
      // reads 0 there; the switch back finds the unstreamed form's entry still warm) and the middleware says so at
      // both switches (its engine saw the same bytes: a tools resync each, no other). 3.0.0 (to 3.0.70) sends no flag
      // either (a beta header instead): the middleware asks the provider's own request builder, so its view has no
      // flag, and the switches are not a change: no warning, no resync, every request reads.
      const sw = report.switch;
      const streamed = sw.eager.slice(4, 8);
      expect(sw.requests).toBe(12);
      expect(sw.statuses.every((s) => s === 200)).toBe(true);
      expect(sw.eager.slice(0, 4).concat(sw.eager.slice(8))).not.toContain(true);
      const switched = sw.warnings.filter((w) => w.startsWith('tool_streaming_switched'));
      expect(switched).toHaveLength(sw.warnings.length);
      if (c.ai.startsWith('5.')) {
        expect(streamed).toEqual([false, false, false, false]);
        expect(sw.warnings).toEqual([]);
        expect(sw.resyncs).toBe(0);
        for (const [i, r] of sw.reads.entries()) if (i > 0) expect(r, `switch, request ${i}`).toBeGreaterThan(0);
      } else if (c.anthropic === '3.0.0') {
        expect(streamed).toEqual([false, false, false, false]);
        expect(sw.warnings).toEqual([]);
        expect(sw.resyncs).toBe(0);
        for (const [i, r] of sw.reads.entries()) if (i > 0) expect(r, `switch, request ${i}`).toBeGreaterThan(0);
      } else {
        expect(streamed).toEqual([true, true, true, true]);
        expect([switched.length, sw.resyncs]).toEqual([2, 2]);
        expect(sw.reads[4]).toBe(0);
        for (const [i, r] of sw.reads.entries()) if (i > 0 && i !== 4) expect(r, `switch, request ${i}`).toBeGreaterThan(0);
      }
      // The caller's own cacheControl on the one user message: replaced by the engine's (the envelope's, and the
      // newest stable block's: that message), with a warning in the call's own warnings as well as onWarning.
      expect(report.own).toEqual({ codes: ['caller_cache_control'], callWarnings: 1, status: 200, markers: 2 });
      if (c.providers) {
        // Converse, OpenAI with markers, Claude through the AI Gateway: every request reads more than the one before,
        // ≤ 4 markers, no warning.
        const others = runReport<
          Record<'converse' | 'responses' | 'chat' | 'gateway', { statuses: number[]; reads: number[]; markers: number[]; warnings: string[] }>
        >(dir, 'ai-sdk-providers.ts');
        expect(Object.keys(others)).toEqual(['converse', 'responses', 'chat', 'gateway']);
        for (const [name, loop] of Object.entries(others)) {
          expect(loop.statuses, name).toEqual([200, 200, 200, 200, 200, 200]);
          expect(loop.warnings, name).toEqual([]);
          for (let i = 1; i < loop.reads.length; i++)
            expect(loop.reads[i], `${name}, request ${i}: ${loop.reads.join(', ')}`).toBeGreaterThan(loop.reads[i - 1]!);
          for (const m of loop.markers) expect(m, name).toBeGreaterThanOrEqual(2);
          for (const m of loop.markers) expect(m, name).toBeLessThanOrEqual(4);
        }
      }
      if (c.openai) {
        const openai = runReport<Record<'responses' | 'chat', { requests: number; statuses: number[]; reads: number[] }>>(dir, 'openai-loop.ts');
        for (const api of ['responses', 'chat'] as const) {
          expect(openai[api].requests, api).toBe(6);
          expect(openai[api].statuses.every((s) => s === 200)).toBe(true);
          expect(openai[api].reads[0]).toBe(0);
          for (const r of openai[api].reads.slice(1)) expect(r, api).toBeGreaterThan(0);
        }
      }
    });
  }
});

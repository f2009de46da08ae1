/**
 * Without the SDK: `@anthropic-ai/sdk` is an optional peer, so a project that
 * uses only the core, the AI SDK middleware (`cachepoint/ai-sdk` with `ai`) and
 * the tool-result cache installs the packed tarball without it, compiles with
 * `skipLibCheck: false` (our .d.ts must not name the SDK) and runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, pack, ROOT, runReport, typeErrors, type Packed } from './project.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

let packed: Packed;
beforeAll(() => {
  packed = pack('cachepoint-no-sdk-');
});
afterAll(() => packed?.remove());

interface Report {
  toolCache: string[];
  prepareMarkers: number;
  prepareMessages: number;
  toAnthropicMarkers: number;
  aiText: string;
  aiMarkers: number;
  aiWarnings: string[];
  redisMissing: { conversationStore: string; toolCacheStore: string; client: string };
}

describe('the packed package without @anthropic-ai/sdk', () => {
  it('core, cachepoint/ai-sdk and the tool cache typecheck (skipLibCheck off) and run', () => {
    const dir = install(
      packed,
      'no-sdk',
      {
        ai: pkg.devDependencies['ai']!,
        // What `ai`'s own .d.ts need under skipLibCheck off (node:http, Buffer, json-schema): the consumer's, not ours.
        '@types/node': pkg.devDependencies['@types/node']!,
        '@types/json-schema': '^7',
      },
      ['no-sdk.ts'],
      ['node'],
    );
    // No optional peer is installed unless asked for: the SDK stays out.
    expect(existsSync(join(dir, 'node_modules', '@anthropic-ai', 'sdk'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'ai', 'package.json'))).toBe(true);
    expect(typeErrors(dir)).toEqual([]);
    const report = runReport<Report>(dir, 'no-sdk.ts');
    expect(report.toolCache).toEqual(['miss', 'hit']);
    expect(report.prepareMessages).toBe(1);
    expect(report.prepareMarkers).toBeGreaterThan(0);
    expect(report.toAnthropicMarkers).toBeGreaterThan(0);
    expect(report.aiText).toBe('ok');
    expect(report.aiMarkers).toBeGreaterThan(0);
    expect(report.aiWarnings).toEqual([]);
    // Without `redis`: each entry names itself and its own alternative (the conversation store's named the tool cache's).
    expect(existsSync(join(dir, 'node_modules', 'redis'))).toBe(false);
    const needs = 'needs the "redis" package (node-redis v6), an optional peer dependency of cachepoint: run `npm install redis`';
    expect(report.redisMissing).toEqual({
      conversationStore: `createRedisConversationStore ${needs}, or pass your own client (a RedisLike) to \`new RedisConversationStore({ client })\`.`,
      toolCacheStore: `createRedisToolCacheStore ${needs}, or pass your own client (a RedisLike) to \`new RedisToolCacheStore({ client })\`.`,
      client: `nodeRedisClient ${needs}, or adapt your own client (a RedisLike: see docs/redis.md).`,
    });
  });
});

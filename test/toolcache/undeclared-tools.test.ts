/**
 * A tool the cache was never told about: a user who declares only the read tools (the usual first setup) runs a
 * shell that edits files (`sed -i`, `mv`, `rm`, a redirect) or any other undeclared tool. The cache cannot know
 * what it wrote, so it must treat it as a write to everything, or serve the read it cached before the shell ran.
 * Real files in a temporary directory, a real shell, a real redis-server for the fleet case.
 */

import Anthropic from '@anthropic-ai/sdk';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recallTool } from '../../src/recall/recall-tool.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer } from '../../src/testing/fake-server.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';
import { unmark } from './helpers.js';
import { twoStores, useSharedRedis } from './redis-fixtures/helpers.js';
import { uniqueNamespace } from './redis-fixtures/server.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-undeclared-'));
  writeFileSync(join(dir, 'a.ts'), 'v1');
  writeFileSync(join(dir, 'b.ts'), 'other');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The truth: what the file holds now. */
const onDisk = (path: string): string => (existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8') : 'missing');
const read = (a: { file_path: string }) => onDisk(a.file_path);
const bash = (a: { command: string }) => execFileSync('bash', ['-c', a.command], { cwd: dir, encoding: 'utf8' });

/** What a user declares first: the reads, and nothing else. */
function readsOnly(options: ConstructorParameters<typeof ToolCache>[0] = {}): ToolCache {
  const cache = new ToolCache(options);
  cache.register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  cache.register('LS', { cacheable: true, ttl: { turns: 5 }, reads: ['file:*'] });
  // Reads nothing declared: an undeclared tool may still change what it answers (a shell can do anything).
  cache.register('Status', { cacheable: true, ttl: { turns: 5 } });
  return cache;
}

const SHELL_WRITES = [
  ['sed -i', "sed -i 's/v1/v2/' a.ts", 'v2'],
  ['a redirect', 'echo -n v3 > a.ts', 'v3'],
  ['mv over it', 'echo -n v4 > c.ts && mv c.ts a.ts', 'v4'],
  ['rm', 'rm a.ts', 'missing'],
  ['git checkout', 'git init -q . && git add a.ts && git -c user.email=x@y -c user.name=x commit -qm x && echo -n v5 > a.ts && git checkout -q a.ts', 'v1'],
] as const;

describe('ToolCache: a tool nobody declared is a write to everything (the default)', () => {
  for (const [what, command, after] of SHELL_WRITES) {
    it(`does not serve a read cached before an undeclared Bash ran ${what} (tool_use blocks, runToolUses)`, async () => {
      const cache = readsOnly();
      const handlers = { Read: read, Bash: bash };
      const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input });
      const first = await cache.runToolUses([use('t1', 'Read', { file_path: 'a.ts' })], handlers, { scope: '' });
      expect(first[0]?.content).toBe('v1');
      // git checkout restores v1 only after a write of v5 that a read in between would see.
      if (what === 'git checkout') {
        await cache.runToolUses([use('t2', 'Bash', { command: command.replace(' && git checkout -q a.ts', '') })], handlers, { scope: '' });
        expect(unmark((await cache.runToolUses([use('t3', 'Read', { file_path: 'a.ts' })], handlers, { scope: '' }))[0]?.content)).toBe('v5');
        await cache.runToolUses([use('t4', 'Bash', { command: 'git checkout -q a.ts' })], handlers, { scope: '' });
      } else {
        await cache.runToolUses([use('t2', 'Bash', { command })], handlers, { scope: '' });
      }
      expect(onDisk('a.ts')).toBe(after);
      const again = await cache.runToolUses([use('t5', 'Read', { file_path: 'a.ts' })], handlers, { scope: '' });
      expect(unmark(again[0]?.content)).toBe(after);
    });
  }

  it('evicts whole-family reads and reads that declared no dependency too, and moves the epoch', async () => {
    const cache = readsOnly();
    let status = 'clean';
    await cache.call('LS', {}, () => 'a.ts b.ts', { scope: '', callId: 'l1' });
    await cache.call('Status', {}, () => status, { scope: '', callId: 's1' });
    expect((await cache.call('Status', {}, () => status, { scope: '', callId: 's2' })).cache.type).toBe('hit');
    const before = await cache.store.epoch();
    const r = await cache.call(
      'Deploy',
      {},
      () => {
        status = 'deployed';
        return 'ok';
      },
      { scope: '', callId: 'd1' },
    );
    expect(r.cache).toEqual({ type: 'bypass', reason: 'undeclared' });
    expect(await cache.store.epoch()).toBeGreaterThan(before);
    expect((await cache.call('Status', {}, () => status, { scope: '', callId: 's3' })).content).toBe('deployed');
    expect((await cache.call('LS', {}, () => 'a.ts', { scope: '', callId: 'l2' })).content).toBe('a.ts');
    expect(cache.stats().evictions.write).toBe(2);
  });

  it('does not cache a read that overlapped an undeclared tool', async () => {
    const cache = readsOnly();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.call(
      'Read',
      { file_path: 'a.ts' },
      async (a: { file_path: string }) => {
        const v = onDisk(a.file_path);
        await gate;
        return v;
      },
      { scope: '', callId: 'r1' },
    );
    await new Promise((r) => setImmediate(r));
    await cache.call('Bash', { command: "sed -i 's/v1/v2/' a.ts" }, bash, { scope: '', callId: 'b1' });
    release();
    expect((await slow).content).toBe('v1'); // it overlapped the write: either side is correct
    const after = await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' });
    expect(unmark(after.content)).toBe('v2');
  });

  it('an identical read that starts after the undeclared tool returned does not join a run that began before it', async () => {
    const cache = readsOnly();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const slowRead = async (a: { file_path: string }) => {
      runs++;
      const v = onDisk(a.file_path);
      if (runs === 1) await gate;
      return v;
    };
    const first = cache.call('Read', { file_path: 'a.ts' }, slowRead, { scope: '', callId: 'r1' });
    await new Promise((r) => setImmediate(r));
    await cache.call('Bash', { command: "sed -i 's/v1/v2/' a.ts" }, bash, { scope: '', callId: 'b1' });
    const second = cache.call('Read', { file_path: 'a.ts' }, slowRead, { scope: '', callId: 'r2' });
    release();
    expect((await first).content).toBe('v1');
    expect(unmark((await second).content)).toBe('v2');
    expect(runs).toBe(2);
  });

  it('a tool registered with an empty policy is declared harmless: it evicts nothing', async () => {
    const cache = readsOnly();
    cache.register('WebSearch', {});
    await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r1' });
    await cache.call('WebSearch', { q: 'x' }, () => 'results', { scope: '', callId: 'w1' });
    expect((await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' })).cache.type).toBe('hit');
  });

  it("undeclared: 'passthrough' is the opt-out: undeclared tools evict nothing (you promise they write nothing)", async () => {
    const cache = readsOnly({ undeclared: 'passthrough' });
    await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r1' });
    await cache.call('Bash', { command: 'echo hi' }, bash, { scope: '', callId: 'b1' });
    expect((await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' })).cache.type).toBe('hit');
    expect(() => new ToolCache({ undeclared: 'evict' as never })).toThrow(/undeclared/);
  });
});

describe('Session with a tool cache: tool_use blocks answered from the cache', () => {
  it('answers a Read after an undeclared Bash edited the file with the new content; its own recall tool evicts nothing', async () => {
    const use = (id: string, name: string, input: unknown) => [{ type: 'tool_use' as const, id, name, input }];
    const server = await startFakeServer({
      script: [
        use('toolu_1', 'Read', { file_path: 'a.ts' }),
        use('toolu_2', 'Read', { file_path: 'a.ts' }),
        use('toolu_3', 'recall', { path: 'turns/1/rounds/1/results/toolu_1' }),
        use('toolu_4', 'Read', { file_path: 'a.ts' }),
        use('toolu_5', 'Bash', { command: "sed -i 's/v1/v2/' a.ts" }),
        use('toolu_6', 'Read', { file_path: 'a.ts' }),
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    try {
      const toolCache = readsOnly();
      const session = new Session({
        model: 'claude-sonnet-4-6',
        instructions: INSTRUCTIONS,
        tools: [...TOOLS, recallTool],
        handlers: { Read: read as never, Bash: bash as never },
        toolCache,
        request: { max_tokens: 512 },
      });
      const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
      session.startTurn('Edit a.ts.');
      let rounds = 0;
      while ((await session.step(client)).stop_reason === 'tool_use') rounds++;
      expect(rounds).toBe(6);
      const answers = new Map<string, unknown>();
      for (const r of server.requests) {
        const body = r.body as { messages: { content: unknown }[] };
        const content = body.messages.at(-1)?.content;
        if (Array.isArray(content))
          for (const b of content as { type: string; tool_use_id?: string; content?: unknown }[])
            if (b.type === 'tool_result') answers.set(b.tool_use_id ?? '', b.content);
      }
      expect(answers.get('toolu_2')).toBe('v1\n[cached]');
      expect(answers.get('toolu_4')).toBe('v1\n[cached]'); // the session's own recall is harmless
      expect(answers.get('toolu_6')).toBe('v2');
    } finally {
      await server.close();
    }
  });
});

describe('ToolCache on Redis: an undeclared tool on one replica', () => {
  const redis = useSharedRedis();

  for (const frontTier of [false, true]) {
    it(`leaves no other replica the entry it made stale${frontTier ? ' (front tiers)' : ''}`, async () => {
      const options = frontTier ? { frontTier: { leaseMs: 200 } } : {};
      const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('undeclared'), redis.opened, options);
      const a = readsOnly({ store: aStore.store, session: 'conv-1' });
      const b = readsOnly({ store: bStore.store, session: 'conv-1' });
      await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r1' });
      expect((await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' })).cache.type).toBe('hit');
      await a.call('Bash', { command: "sed -i 's/v1/v2/' a.ts" }, bash, { scope: '', callId: 'b1' });
      expect(unmark((await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r3' })).content)).toBe('v2');
    });
  }
});

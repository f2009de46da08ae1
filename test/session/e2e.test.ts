/**
 * End to end: the real Anthropic SDK client against the fake Messages API,
 * driven by the Session API over a 3-turn, 12-round scripted session, with a
 * real tool cache running the tools.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Turn t: 3 tool rounds (reading files, one re-read), then a final answer. */
function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= 3; t++) {
    for (let r = 1; r <= 3; r++) {
      out.push([
        { type: 'thinking', thinking: `Turn ${t}, step ${r}: I need to read more.`, signature: `sig-${t}-${r}` },
        { type: 'tool_use', id: `toolu_${t}_${r}_a`, name: 'Read', input: { path: `src/mod-${r}.ts` } },
        { type: 'tool_use', id: `toolu_${t}_${r}_b`, name: 'Read', input: { path: 'src/index.ts' } },
      ]);
    }
    out.push([{ type: 'text', text: `Turn ${t} done: the change is in src/mod-1.ts.` }]);
  }
  return out;
}

function files(): Record<string, string> {
  return Object.fromEntries(['src/index.ts', 'src/mod-1.ts', 'src/mod-2.ts', 'src/mod-3.ts'].map((p) => [p, text(p, 900)]));
}

describe('Session with the real SDK against the fake server', () => {
  it('runs 3 turns / 12 rounds with cache reads on every request after the first', async () => {
    server = await startFakeServer({ script: script() });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
    const fs = files();
    let runs = 0;
    const toolCache = new ToolCache().register<{ path: string }>('Read', {
      cacheable: true,
      ttl: { turns: 5 },
      reads: ['file'],
      tags: (args) => [`file:${args.path}`],
    });
    const session = new Session({
      model: 'claude-sonnet-4-6',
      instructions: INSTRUCTIONS,
      tools: TOOLS,
      toolCache,
      handlers: {
        Read: ((args: { path: string }) => {
          runs++;
          return fs[args.path] ?? `Error: no such file ${args.path}`;
        }) as never,
      },
    });
    for (let t = 1; t <= 3; t++) {
      session.startTurn(`Task ${t}: tidy up the modules.`);
      for (;;) {
        const message = await session.step(client, { max_tokens: 1024 }, { stream: t === 2 });
        if (message.stop_reason !== 'tool_use') break;
      }
      session.setTail(`live view after turn ${t}`);
    }
    const requests = server.requests.filter((r) => r.path === '/v1/messages');
    expect(requests).toHaveLength(12);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const usage = requests.map((r) => (r.response as Anthropic.Message).usage);
    expect(usage[0]!.cache_read_input_tokens).toBe(0);
    expect(usage[0]!.cache_creation_input_tokens).toBeGreaterThan(0);
    for (const u of usage.slice(1)) expect(u.cache_read_input_tokens).toBeGreaterThan(0);

    const stats = session.stats();
    expect(stats.totals.requests).toBe(12);
    expect(stats.totals.cacheRead).toBe(usage.reduce((n, u) => n + (u.cache_read_input_tokens ?? 0), 0));
    expect(stats.totals.hitRatio).toBeGreaterThan(0.5);
    expect(stats.totals.cost).toBeLessThan(stats.totals.uncachedCost);
    // The plan predicted what the provider reported (same rules, local counts).
    for (const r of stats.requests) expect(r.predicted.read).toBe(r.reported.cacheRead);
    // The tool cache served repeated reads: src/index.ts is read in every round.
    expect(stats.toolCache!.hits).toBeGreaterThan(0);
    expect(runs).toBeLessThan(18);
    expect(session.formatStats()).toContain('hit ratio');
  });

  it('surfaces the fake server’s rejections as the SDK’s own error types', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'never' }]] });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
    const marked = (t: string) => ({ type: 'text' as const, text: t, cache_control: { type: 'ephemeral' as const } });
    const five = client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      system: [marked('a'), marked('b'), marked('c')],
      messages: [{ role: 'user', content: [marked('d'), marked('e')] }],
    });
    await expect(five).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(five).rejects.toMatchObject({ status: 400 });
    await expect(five).rejects.toThrow(/A maximum of 4 blocks with cache_control may be provided. Found 5./);

    const orphan = client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }] },
      ],
    });
    await expect(orphan).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(orphan).rejects.toThrow(/tool_result/);
  });
});

/**
 * Session.runTools answers what the model asks for: a `recall` call from the
 * session's own state (the notes that replace pruned payloads tell the model
 * to make it), and a handler's `{ content, isError: true }` as an error result.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recallTool } from '../../src/recall/recall-tool.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { MessageCreateParamsBase } from '../../src/providers/anthropic-types.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FILE = text('src/math.ts', 4000);

/** The first path a pruning note of the request names (`recall("turns/…")`). */
function notedPath(request: MessageCreateParamsBase): string | undefined {
  return /recall\(\\"(turns\/[^\\]+)\\"\)/.exec(JSON.stringify(request.messages))?.[1];
}

describe('Session.runTools', () => {
  it.each([false, true])('answers the model’s recall call from the session’s state, byte-identical (tool cache: %s)', async (withCache) => {
    let path: string | undefined;
    server = await startFakeServer({
      script: [
        [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'src/math.ts' } }],
        [{ type: 'text', text: 'Read it.' }],
        // Turn 2, after a pause that let the cache go cold: the read was pruned behind a note; the model recalls it.
        (request) => {
          path = notedPath(request);
          return [{ type: 'tool_use', id: 'toolu_recall', name: 'recall', input: { path } }];
        },
        [{ type: 'text', text: 'Recalled.' }],
      ],
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const clock = { now: 1_000_000 };
    const session = new Session({
      model: 'claude-sonnet-4-6',
      instructions: INSTRUCTIONS,
      tools: [...TOOLS, recallTool],
      handlers: { Read: (() => FILE) as never },
      ...(withCache ? { toolCache: new ToolCache().register('Read', { cacheable: true, ttl: { turns: 5 } }) } : {}),
      request: { max_tokens: 512 },
      render: { prune: { keepTurns: 0, keepRounds: 1, minChars: 100, reuse: false } },
      now: () => clock.now,
    });
    const loop = async (task: string) => {
      session.startTurn(task);
      for (;;) {
        clock.now += 2_000;
        if ((await session.step(client)).stop_reason !== 'tool_use') break;
      }
    };
    await loop('Read src/math.ts.');
    clock.now += 10 * 60_000;
    await loop('What did src/math.ts say?');

    expect(path).toBe('turns/1/rounds/1/results/toolu_read');
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    const last = server.requests.at(-1)!.body as MessageCreateParamsBase;
    const answer = (last.messages.at(-1)!.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]).find(
      (b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_recall',
    );
    expect(answer?.is_error).toBeUndefined();
    expect(answer?.content).toBe(FILE);
  });

  it('sends a handler’s { content, isError: true } as an error result (without a tool cache as with one)', async () => {
    server = await startFakeServer({
      script: [[{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'nope.ts' } }], [{ type: 'text', text: 'No such file.' }]],
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const session = new Session({
      model: 'claude-sonnet-4-6',
      instructions: INSTRUCTIONS,
      tools: TOOLS,
      handlers: { Read: (() => ({ content: 'ENOENT: nope.ts', isError: true })) as never },
      request: { max_tokens: 512 },
    });
    session.startTurn('Read nope.ts.');
    for (;;) if ((await session.step(client)).stop_reason !== 'tool_use') break;
    const last = server.requests.at(-1)!.body as MessageCreateParamsBase;
    expect(last.messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', tool_use_id: 'toolu_read', content: 'ENOENT: nope.ts', is_error: true }]);
  });
});

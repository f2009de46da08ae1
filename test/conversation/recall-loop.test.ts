/**
 * The drop-in loop of docs/drop-in.md with the recall tool: after a pause that
 * let the cache go cold, `prepare` prunes an old tool result behind a note; the
 * model calls `recall` with the note's path and the loop answers it with
 * `recallToolResult` from `rendered.state`: the original payload, byte-identical.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recordUsage } from '../../src/conversation/prepare.js';
import { recallTool, recallToolResult } from '../../src/recall/recall-tool.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { MessageCreateParamsBase } from '../../src/providers/anthropic-types.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FILE = text('src/math.ts', 4000);

describe('the drop-in loop with the recall tool', () => {
  it('reads a pruned tool result back, byte-identical, through recallToolResult on rendered.state', async () => {
    let noted: string | undefined;
    server = await startFakeServer({
      script: [
        [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'src/math.ts' } }],
        [{ type: 'text', text: 'Read it.' }],
        (request: MessageCreateParamsBase) => {
          noted = /recall\(\\"(turns\/[^\\]+)\\"\)/.exec(JSON.stringify(request.messages))?.[1];
          return [{ type: 'tool_use', id: 'toolu_recall', name: 'recall', input: { path: noted } }];
        },
        [{ type: 'text', text: 'Recalled.' }],
      ],
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const messages: Anthropic.MessageParam[] = [];
    let now = 1_000_000;
    for (const task of ['Read src/math.ts.', 'What did src/math.ts say?']) {
      messages.push({ role: 'user', content: task });
      for (;;) {
        now += 2_000;
        const { params, headers, rendered } = await prepare(
          { model: 'claude-sonnet-4-6', max_tokens: 512, system: INSTRUCTIONS.join('\n\n'), tools: [...TOOLS, recallTool], messages },
          { conversationId: 'task-42', store, now, render: { prune: { keepTurns: 0, keepRounds: 1, minChars: 100, reuse: false } } },
        );
        const message = await client.messages.create(params, { headers });
        await recordUsage(message, { conversationId: 'task-42', store, now });
        messages.push({ role: 'assistant', content: message.content });
        if (message.stop_reason !== 'tool_use') break;
        const results: Anthropic.ToolResultBlockParam[] = [];
        for (const call of message.content) {
          if (call.type !== 'tool_use') continue;
          results.push(
            call.name === recallTool.name
              ? recallToolResult(call.id, call.input, { state: rendered.state })
              : { type: 'tool_result', tool_use_id: call.id, content: FILE },
          );
        }
        messages.push({ role: 'user', content: results });
      }
      now += 10 * 60_000; // the cache goes cold: the next request prunes
    }
    expect(noted).toBe('turns/1/rounds/1/results/toolu_read');
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(messages.at(-2)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_recall', content: FILE }] });
  });
});

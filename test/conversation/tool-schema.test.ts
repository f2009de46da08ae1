/**
 * A custom tool without an input_schema went out as is, and the API refuses the request (the SDK's `Tool` requires
 * `input_schema`, an object schema). The usual way in: an MCP server's tool list forwarded as is, which spells it
 * `inputSchema`. prepare promises a request the API accepts, so it names the tool and the field instead.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { InvalidParamsError, TimelineError } from '../../src/errors.js';
import { recallTool } from '../../src/recall/recall-tool.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { createTimeline } from '../../src/timeline/edit.js';

const messages = [{ role: 'user' as const, content: 'Read the README.' }];
const base = { model: 'claude-sonnet-4-6', max_tokens: 100, messages };
const run = (tools: unknown[]) => prepare({ ...base, tools: tools as never }, { conversationId: 'c', store: new MemoryConversationStore() });

describe('prepare: tool definitions', () => {
  it.each([
    [{ name: 'Read', description: 'Reads a file' }, 'tools[0].input_schema: tool "Read" needs an input_schema, a JSON Schema object'],
    [
      { name: 'Read', description: 'Reads a file', inputSchema: { type: 'object' } },
      'tools[0].input_schema: tool "Read" needs an input_schema, a JSON Schema object (this tool has `inputSchema`, the MCP spelling: rename it)',
    ],
    [{ type: 'custom', name: 'Read', input_schema: 'object' }, 'tools[0].input_schema: tool "Read" needs an input_schema, a JSON Schema object'],
    [{ name: 'Read', input_schema: [] }, 'tools[0].input_schema: tool "Read" needs an input_schema, a JSON Schema object'],
    // An MCP / OpenAI-style schema without a top-level type: the API says "tools.0.custom.input_schema.type: Field required".
    [
      { name: 'Read', input_schema: { properties: { path: { type: 'string' } } } },
      'tools[0].input_schema: tool "Read": its input_schema needs a "type" ("object", the API requires it)',
    ],
  ])('refuses a custom tool without an object input_schema (%j)', async (tool, message) => {
    const err = await run([tool]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect((err as InvalidParamsError).where).toBe('tools[0].input_schema');
    expect((err as Error).message).toBe(message);
  });

  it('takes custom tools with a schema and server tools, which have none', async () => {
    const tools = [
      { name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      recallTool,
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ];
    const { params } = await run(tools);
    expect((params.tools as { name: string }[] | undefined)?.map((t) => t.name)).toEqual(['Read', 'recall', 'web_search']);
  });
});

describe('the Session path and the fake server: tool definitions', () => {
  const noSchema = { name: 'Read', description: 'Reads a file', inputSchema: { type: 'object' } };

  it('createTimeline refuses a custom tool without an object input_schema, naming the tool and the path', () => {
    const err = (() => {
      try {
        createTimeline({ model: 'claude-sonnet-4-6', instructions: ['Be brief.'], tools: [noSchema as never] });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TimelineError);
    expect((err as Error).message).toContain('envelope/tools/0/input_schema');
    expect((err as Error).message).toContain('tool "Read" needs an input_schema, a JSON Schema object (this tool has `inputSchema`');
    // Server tools and toolsets have a type and no schema: taken.
    const ok = createTimeline({
      model: 'claude-sonnet-4-6',
      instructions: ['Be brief.'],
      tools: [recallTool, { type: 'web_search_20250305', name: 'web_search' } as never],
    });
    expect(ok.envelope.tools.map((t) => t.path)).toHaveLength(2);
  });

  it('the fake server refuses such a request as the API does, and takes one with the schema', () => {
    const body = (tools: unknown[]) => ({ model: 'claude-sonnet-4-6', max_tokens: 10, messages, tools });
    expect(validateRequest(body([noSchema]))?.message).toContain('tools.0.custom.input_schema: Field required');
    expect(validateRequest(body([{ name: 'Read', input_schema: { properties: {} } }]))?.message).toContain('tools.0.custom.input_schema.type: Field required');
    expect(validateRequest(body([recallTool, { type: 'web_search_20250305', name: 'web_search' }]))).toBeNull();
  });
});

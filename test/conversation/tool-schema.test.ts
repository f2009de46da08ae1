/**
 * A custom tool without an input_schema went out as is, and the API refuses the request (the SDK's `Tool` requires
 * `input_schema`, an object schema). The usual way in: an MCP server's tool list forwarded as is, which spells it
 * `inputSchema`. prepare promises a request the API accepts, so it names the tool and the field instead.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { InvalidParamsError } from '../../src/errors.js';
import { recallTool } from '../../src/recall/recall-tool.js';

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

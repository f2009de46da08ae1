/**
 * A new conversation starts from the empty timeline an earlier conversation of this process was built from, when
 * their envelopes (model, system, tools) are the same content (prepare.ts `initials`: building the envelope cost
 * ~15-30 µs a conversation). The reuse is by content, never by the caller's objects: a tool object changed in place
 * between two conversations, another key order, another model or a marker are each a new envelope, built afresh
 * with its own bytes, exactly as without the reuse.
 */
import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';

const schema = () => ({ type: 'object', properties: { path: { type: 'string', description: 'file to read' } }, required: ['path'] });
const tools = () => [
  { name: 'Read', description: 'Reads a file.', input_schema: schema() },
  { name: 'Grep', description: 'Searches files.', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
];
const system = () => [{ type: 'text' as const, text: 'You are a careful coding agent. Read before you edit.' }];
const messages = [{ role: 'user' as const, content: 'Find the bug in src/main.rs' }];

/** The request a new conversation's first prepare sends, as JSON. */
async function first(body: { model?: string; system?: unknown; tools?: unknown }, id: string): Promise<string> {
  const store = new MemoryConversationStore();
  const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, ...body, messages } as Parameters<typeof prepare>[0];
  const { params: out } = await prepare(params, { conversationId: id, store, now: 0 });
  return JSON.stringify(out);
}

describe('a new conversation with an envelope an earlier one had', () => {
  it('sends the bytes it sends when built afresh (fresh objects, the same content)', async () => {
    const a = await first({ system: system(), tools: tools() }, 'a');
    const b = await first({ system: system(), tools: tools() }, 'b');
    expect(b).toBe(a);
    expect(JSON.parse(a).tools[0].input_schema.properties.path.description).toBe('file to read');
  });

  it('sees a tool object the loop changed in place since (content, not identity, decides)', async () => {
    // An envelope no earlier test sent: the first conversation builds it from these very objects.
    const t = tools();
    const s = [{ type: 'text' as const, text: 'You are a careful coding agent. Read before you edit. (in place)' }];
    const before = await first({ system: s, tools: t }, 'c');
    (t[0]!.input_schema.properties as Record<string, { description: string }>).path!.description = 'absolute path of the file to read';
    s[0]!.text = 'You are a careful coding agent. Read twice before you edit.';
    t.push({ name: 'Glob', description: 'Lists files.', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } });
    const after = JSON.parse(await first({ system: s, tools: t }, 'd'));
    expect(after.tools[0].input_schema.properties.path.description).toBe('absolute path of the file to read');
    expect(after.system[0].text).toBe('You are a careful coding agent. Read twice before you edit.');
    expect(after.tools.map((x: { name: string }) => x.name)).toEqual(['Read', 'Grep', 'Glob']);
    expect(JSON.stringify(after)).not.toBe(before);
  });

  it('builds another key order, model or marker afresh, with its own bytes', async () => {
    await first({ system: system(), tools: tools() }, 'e');
    const reordered = tools().map(({ name, description, input_schema }) => ({ description, name, input_schema }));
    const out = JSON.parse(await first({ system: system(), tools: reordered }, 'f'));
    expect(Object.keys(out.tools[0])[0]).toBe('description');
    const haiku = JSON.parse(await first({ model: 'claude-haiku-4-5', system: system(), tools: tools() }, 'g'));
    expect(haiku.model).toBe('claude-haiku-4-5');
    const marked = tools();
    (marked[1] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
    const m = JSON.parse(await first({ system: system(), tools: marked }, 'h'));
    // The caller's marker never reaches the request as sent (the renderer places its own).
    expect(JSON.stringify(m.tools)).toBe(JSON.stringify(JSON.parse(await first({ system: system(), tools: tools() }, 'i')).tools));
  });

  it('a string system prompt and none are envelopes of their own', async () => {
    const text = await first({ system: 'Be brief.', tools: tools() }, 'j');
    const none = await first({ tools: tools() }, 'k');
    expect(JSON.parse(text).system[0].text).toBe('Be brief.');
    expect(JSON.parse(none).system).toBeUndefined();
    expect(await first({ system: 'Be brief.', tools: tools() }, 'l')).toBe(text);
  });
});

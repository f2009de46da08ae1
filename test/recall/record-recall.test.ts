import Anthropic from '@anthropic-ai/sdk';
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { castDraft, produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hiddenNote, hiddenRecord } from '../../src/render/notes.js';
import { render } from '../../src/render/render.js';
import { MemoryPayloadStore } from '../../src/recall/memory.js';
import { forgottenPaths, recordState } from '../../src/recall/record.js';
import { handleRecall, recallTool, recallToolResult } from '../../src/recall/recall-tool.js';
import { startFakeServer } from '../../src/testing/fake-server.js';
import { appendToolResults, appendResponse } from '../../src/timeline/edit.js';
import { findBlock, turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { session } from '../helpers/build.js';
import { RESULT_WITH_PARTS, TOOL_USE } from './payloads.js';

/** A session of 4 turns: turn 1 compacted, two results of turn 3 pruned/hidden, the result with parts of turn 4 hidden. */
function forgetful(): TimelineState {
  let s = session([2, 2, 3, 1]);
  // A result with parts and an error, so recall has more than strings to give back.
  s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_parts', name: 'Read', input: { path: 'src/retry.ts' } }]);
  s = appendToolResults(s, [{ ...(RESULT_WITH_PARTS as ToolResultBlockParam), tool_use_id: 'toolu_parts' }]);
  const turn3 = s.turns[2]!;
  const results = turn3.rounds.flatMap((r) => r.results.map((b) => b.path));
  const turn1Paths = [...turnBlocks(s.turns[0]!)].map((b) => b.path);
  const hides = [
    hiddenRecord(s, results[0]!, 'prune'),
    hiddenRecord(s, results[1]!, 'agent', 'superseded'),
    hiddenRecord(s, 'turns/4/rounds/2/results/toolu_parts', 'agent'),
  ];
  return produce(s, (d) => {
    for (const h of hides) d.hidden[h.path] = castDraft(h);
    d.summaries.push({ path: 'summaries/0', fromTurn: 1, toTurn: 1, text: 'Turn 1: fixed #100.', paths: turn1Paths, by: 'extractive' });
  });
}

describe('recordState', () => {
  it('stores every hidden, pruned and compacted block byte-identical, with its reason and turn', () => {
    const state = forgetful();
    const store = new MemoryPayloadStore();
    const forgotten = forgottenPaths(state);
    const result = recordState(store, state);
    expect(result).toEqual({ added: forgotten.length, replaced: 0, unchanged: 0, missing: [] });
    expect(store.size).toBe(forgotten.length);
    for (const { path, reason } of forgotten) {
      expect(JSON.stringify(store.get(path)?.payload)).toBe(JSON.stringify(findBlock(state, path)!.param));
      expect(store.get(path)?.reason).toBe(reason);
    }
    expect(forgotten.filter((f) => f.reason === 'compact').map((f) => f.path)).toEqual([...turnBlocks(state.turns[0]!)].map((b) => b.path));
    expect(store.byTurn(3)).toHaveLength(2);
    expect(store.byTurn(1)).toHaveLength([...turnBlocks(state.turns[0]!)].length);
    expect(store.byTurn(2)).toEqual([]);
  });

  it('is idempotent: recording the same state again changes nothing', () => {
    const state = forgetful();
    const store = new MemoryPayloadStore();
    recordState(store, state);
    expect(recordState(store, state)).toMatchObject({ added: 0, replaced: 0, unchanged: forgottenPaths(state).length });
  });

  it('lists forgotten paths the state has no block for as missing', () => {
    const state = produce(forgetful(), (d) => {
      d.summaries[0]!.paths.push('turns/99/user/0');
    });
    expect(recordState(new MemoryPayloadStore(), state).missing).toEqual(['turns/99/user/0']);
  });
});

describe('handleRecall', () => {
  it('gives back a stored tool result with parts, unchanged', () => {
    const store = new MemoryPayloadStore();
    store.put('turns/2/rounds/1/results/toolu_01AbC', RESULT_WITH_PARTS, { reason: 'prune' });
    const r = handleRecall({ path: 'turns/2/rounds/1/results/toolu_01AbC' }, { store });
    expect(r).toMatchObject({ is_error: false, source: 'store' });
    expect(JSON.stringify(r.content)).toBe(JSON.stringify((RESULT_WITH_PARTS as { content: unknown }).content));
  });

  it('gives back a tool input as its exact JSON', () => {
    const store = new MemoryPayloadStore();
    store.put('turns/1/rounds/1/calls/toolu_03', TOOL_USE, { reason: 'compact' });
    const r = handleRecall({ path: 'turns/1/rounds/1/calls/toolu_03' }, { store });
    expect(r.content).toBe(JSON.stringify(TOOL_USE));
  });

  it('reads from the state when no store has the path', () => {
    const state = forgetful();
    const path = Object.keys(state.hidden)[0]!;
    const r = handleRecall({ path }, { state, store: new MemoryPayloadStore() });
    const original = findBlock(state, path)!.param as { content: string };
    expect(r).toEqual({ content: original.content, is_error: false, source: 'state' });
  });

  it('drops cache markers from recalled parts, so recall never adds a marker', () => {
    const store = new MemoryPayloadStore();
    store.put(
      'turns/1/rounds/1/results/toolu_m',
      { type: 'tool_result', tool_use_id: 'toolu_m', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] },
      { reason: 'prune' },
    );
    expect(handleRecall({ path: 'turns/1/rounds/1/results/toolu_m' }, { store }).content).toEqual([{ type: 'text', text: 'x' }]);
  });

  it('answers an unknown path with an error that lists the stored paths of that turn', () => {
    const state = forgetful();
    const store = new MemoryPayloadStore();
    recordState(store, state);
    const r = handleRecall({ path: 'turns/3/rounds/1/results/toolu_nope' }, { store });
    expect(r.is_error).toBe(true);
    expect(r.content).toContain('No content is stored at path "turns/3/rounds/1/results/toolu_nope"');
    for (const p of store.byTurn(3)) expect(r.content).toContain(p);
  });

  it('lists search hits for a query, from the store or from the state alone', () => {
    const state = forgetful();
    const store = new MemoryPayloadStore();
    recordState(store, state);
    for (const sources of [{ store }, { state }]) {
      const r = handleRecall({ query: 'backoffMs' }, sources);
      expect(r).toMatchObject({ is_error: false, source: 'search' });
      expect(r.content).toMatch(/^1 match for "backoffMs", best first/);
      expect(r.content).toContain('turns/4/rounds/2/results/toolu_parts');
    }
    expect(handleRecall({ query: 'kubernetes' }, { store })).toMatchObject({ is_error: false, source: 'search' });
  });

  it('falls back to the query when the path is unknown and both are given', () => {
    const store = new MemoryPayloadStore();
    store.put('turns/2/rounds/1/results/toolu_01AbC', RESULT_WITH_PARTS, { reason: 'prune' });
    const r = handleRecall({ path: 'turns/2/rounds/1/results/toolu_typo', query: 'backoff' }, { store });
    expect(r.source).toBe('search');
    expect(r.content).toContain('turns/2/rounds/1/results/toolu_01AbC');
  });

  it.each([
    [null, 'recall expects an object'],
    [['turns/1'], 'recall expects an object'],
    [{}, 'recall needs "path" (from a note) or "query"'],
    [{ path: '  ' }, 'recall needs "path"'],
    [{ path: 3 }, '"path" must be a string, got 3'],
    [{ query: { q: 1 } }, '"query" must be a string'],
  ])('answers the bad input %j with an is_error result', (input, text) => {
    const r = handleRecall(input, { store: new MemoryPayloadStore() });
    expect(r.is_error).toBe(true);
    expect(r.content).toContain(text);
  });

  it('treats traversal-looking paths as unknown, never as files', () => {
    const r = handleRecall({ path: '../../etc/passwd' }, { store: new MemoryPayloadStore() });
    expect(r.is_error).toBe(true);
  });
});

describe('recallToolResult', () => {
  it('builds the tool_result block, with is_error only on errors', () => {
    const store = new MemoryPayloadStore();
    store.put('turns/1/user/0', { type: 'text', text: 'Fix #100' }, { reason: 'compact' });
    expect(recallToolResult('toolu_r', { path: 'turns/1/user/0' }, { store })).toEqual({ type: 'tool_result', tool_use_id: 'toolu_r', content: 'Fix #100' });
    expect(recallToolResult('toolu_r', { path: 'turns/9/user/0' }, { store })).toMatchObject({ tool_use_id: 'toolu_r', is_error: true });
  });
});

describe('recallTool', () => {
  it('shows, in its description, the note format the renderer really writes', () => {
    const rendered = JSON.stringify(toAnthropic(render(forgetful(), { now: 0 })));
    const notes = [...rendered.matchAll(/\[pruned: [^\]]*\]/g)].map((m) => m[0].replace(/\\"/g, '"'));
    expect(notes.length).toBeGreaterThan(0);
    // One shape for every note: what, size, the call to make.
    const shape = /^\[(pruned|hidden): [^,\]]+, [\d,]+ chars;( [^\]]*;)? recall\("[^"]+"\)\]$/;
    for (const note of notes) expect(note).toMatch(shape);
    const example = /Notes such as (\[.*?\)\]) /.exec(recallTool.description ?? '')?.[1];
    expect(example).toMatch(shape);
    expect(example).toBe(hiddenNote('turns/3/rounds/2/results/toolu_01', 'Read result', 12_345, 'prune'));
  });

  it('is a tool definition the Messages API accepts, and a recall round trip works through the real SDK', async () => {
    const server = await startFakeServer({
      script: [
        [{ type: 'tool_use', id: 'toolu_r1', name: 'recall', input: { path: 'turns/2/rounds/1/results/toolu_01AbC' } }],
        [{ type: 'text', text: 'backoffMs is 250.' }],
      ],
    });
    try {
      const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
      const store = new MemoryPayloadStore();
      store.put('turns/2/rounds/1/results/toolu_01AbC', RESULT_WITH_PARTS, { reason: 'prune' });
      const base = { model: 'claude-sonnet-4-6', max_tokens: 256, tools: [recallTool] };
      const ask = { role: 'user' as const, content: 'What was the backoff? It was pruned: recall("turns/2/rounds/1/results/toolu_01AbC")' };
      const first = await client.messages.create({ ...base, messages: [ask] });
      const call = first.content.find((b) => b.type === 'tool_use')!;
      const result = recallToolResult(call.id, call.input, { store });
      await client.messages.create({ ...base, messages: [ask, { role: 'assistant', content: first.content }, { role: 'user', content: [result] }] });
      expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
      const sent = (server.requests[1]!.body as { messages: { content: unknown }[] }).messages[2]!.content as { content: unknown }[];
      expect(JSON.stringify(sent[0]!.content)).toBe(JSON.stringify((RESULT_WITH_PARTS as { content: unknown }).content));
    } finally {
      await server.close();
    }
  });
});

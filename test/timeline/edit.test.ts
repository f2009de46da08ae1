import { describe, expect, it } from 'vitest';
import { TimelineError } from '../../src/errors.js';
import { appendResponse, appendToolResults, createTimeline, setTail, startTurn } from '../../src/timeline/edit.js';
import { render } from '../../src/render/render.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { findBlock } from '../../src/timeline/paths.js';
import { hiddenSetOf, stateWith } from '../../src/timeline/hidden.js';
import { answerAll, newSession, session, toolResponse, toolRound } from '../helpers/build.js';

describe('timeline edits', () => {
  it('shares every untouched object when a round is appended', () => {
    const before = session([3, 4]);
    const after = toolRound(before, 2);
    expect(after).not.toBe(before);
    expect(after.envelope).toBe(before.envelope);
    expect(after.turns[0]).toBe(before.turns[0]);
    const [t0, t1] = [before.turns[1]!, after.turns[1]!];
    expect(t1).not.toBe(t0);
    for (let r = 0; r < t0.rounds.length; r++) expect(t1.rounds[r]).toBe(t0.rounds[r]);
    expect(t1.user).toBe(t0.user);
    expect(t1.rounds.length).toBe(t0.rounds.length + 1);
  });

  it('keeps the keys of the state, turn and round it copies (order, optional `at`, the previous render) and shares the rest', () => {
    const call = (id: string) => [{ type: 'tool_use' as const, id, name: 'Read', input: {} }];
    const stateKeys = ['model', 'envelope', 'turns', 'tail', 'hidden', 'summaries', 'deferred', 'pruneNotice'];
    // No timestamps anywhere: no `at` key appears.
    let s = startTurn(newSession(), 'go');
    s = appendResponse(s, call('toolu_a'));
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok' }]);
    expect(Object.keys(s)).toEqual(stateKeys);
    // Every key createTimeline gives is copied along (a key added to the state must be added to the appends' copies).
    expect(Object.keys(s)).toEqual(Object.keys(newSession()));
    expect(Object.keys(s.turns[0]!)).toEqual(['index', 'user', 'rounds']);
    expect(Object.keys(s.turns[0]!.rounds[0]!)).toEqual(['index', 'response', 'results', 'open']);
    // A rendered state keeps its render memory (last) through appends; a round without `at` gets the results' one.
    const rendered = render(s, { now: 1_000 }).state;
    let t = appendResponse(rendered, call('toolu_b'));
    t = appendToolResults(t, [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok' }], [], 2_000);
    expect(Object.keys(t)).toEqual([...stateKeys, 'lastRender']);
    expect(t.lastRender).toBe(rendered.lastRender);
    for (const k of stateKeys.filter((k) => k !== 'turns')) expect(t[k as keyof typeof t]).toBe(rendered[k as keyof typeof rendered]);
    expect(t.turns[0]!.rounds[1]).toMatchObject({ index: 2, at: 2_000, open: [] });
    expect(Object.keys(t.turns[0]!.rounds[1]!)).toEqual(['index', 'response', 'results', 'open', 'at']);
    // A round's own `at` is kept (not the results'), and a timed turn keeps its `at` through appends.
    let u = startTurn(t, 'next', 3_000);
    u = appendResponse(u, call('toolu_c'), 4_000);
    u = appendToolResults(u, [{ type: 'tool_result', tool_use_id: 'toolu_c', content: 'ok' }], [], 5_000);
    expect(Object.keys(u)).toEqual([...stateKeys, 'lastRender']);
    expect(Object.keys(u.turns[1]!)).toEqual(['index', 'user', 'rounds', 'at']);
    expect(u.turns[1]).toMatchObject({ index: 2, at: 3_000 });
    expect(u.turns[1]!.rounds[0]).toMatchObject({ at: 4_000, open: [] });
    expect(Object.isFrozen(u) && Object.isFrozen(u.turns[1]) && Object.isFrozen(u.turns[1]!.rounds[0])).toBe(true);
  });

  it('freezes the state deeply, and does not freeze or keep the caller’s objects', () => {
    const input = { path: 'a.ts' };
    let s = startTurn(newSession(), 'go');
    s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_a', name: 'Read', input }]);
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.turns[0]!.rounds[0]!.response[0]!.param)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    input.path = 'changed';
    expect(findBlock(s, 'turns/1/rounds/1/calls/toolu_a')!.param).toMatchObject({ input: { path: 'a.ts' } });
  });

  it('copies the caller’s data exactly: an own `__proto__` key, keys Object.prototype also has, and symbol keys stay own data', () => {
    // What the copy must keep, whichever way it is built: JSON.parse gives a tool input an own `__proto__` key (an
    // assignment would set the copy's prototype instead), and keys like `constructor` or `toString` are the model's.
    const input = JSON.parse('{"__proto__":{"x":1},"constructor":"c","toString":"t","list":[{"__proto__":2}]}') as Record<string, unknown>;
    const tag = Symbol('tag');
    const part = { type: 'text' as const, text: 'part', [tag]: 'kept' };
    let s = startTurn(newSession(), 'go');
    s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_a', name: 'Read', input }]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_a', content: [part] }]);
    const copy = (findBlock(s, 'turns/1/rounds/1/calls/toolu_a')!.param as { input: Record<string, unknown> }).input;
    expect(copy).not.toBe(input);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'constructor', 'toString', 'list']);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ x: 1 });
    expect(Object.hasOwn((copy.list as object[])[0]!, '__proto__')).toBe(true);
    const sent = JSON.stringify(toAnthropic(render(s, { now: 1_000 }), { max_tokens: 10 }).messages);
    expect(sent).toContain('"input":{"__proto__":{"x":1},"constructor":"c","toString":"t","list":[{"__proto__":2}]}');
    const copiedPart = (findBlock(s, 'turns/1/rounds/1/results/toolu_a')!.param as { content: Record<PropertyKey, unknown>[] }).content[0]!;
    expect(copiedPart[tag]).toBe('kept');
    // The caller's nested objects changed after the append reach no later render.
    (input.list as Record<string, unknown>[])[0]!.y = 'late';
    part.text = 'changed';
    expect(JSON.stringify(toAnthropic(render(s, { now: 1_000 }), { max_tokens: 10 }).messages)).toBe(sent);
  });

  it('finds a repeated tool_use id in any earlier turn, and keeps branches apart (an append to an older state)', () => {
    const call = (id: string) => [{ type: 'tool_use' as const, id, name: 'Read', input: {} }];
    const answer = (s: ReturnType<typeof newSession>, id: string) => appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: 'ok' }]);
    let s = startTurn(newSession(), 'go');
    s = answer(appendResponse(s, call('toolu_a')), 'toolu_a');
    const base = s;
    // The id index follows results and a new turn: a repeat two turns later is still found.
    s = appendResponse(s, [{ type: 'text', text: 'done' }]);
    s = startTurn(s, 'again');
    expect(() => appendResponse(s, call('toolu_a'))).toThrow(/duplicate tool_use id "toolu_a"/);
    // Two branches from the same state: an id used in one is free in the other.
    const left = answer(appendResponse(base, call('toolu_left')), 'toolu_left');
    const right = answer(appendResponse(base, call('toolu_right')), 'toolu_right');
    expect(() => appendResponse(right, call('toolu_left'))).not.toThrow();
    expect(() => appendResponse(left, call('toolu_right'))).not.toThrow();
    expect(() => appendResponse(left, call('toolu_left'))).toThrow(/duplicate/);
    expect(() => appendResponse(right, call('toolu_a'))).toThrow(/duplicate/);
  });

  it('leaves the tool_use id index as it was when a response is refused', () => {
    const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: {} });
    let s = startTurn(newSession(), 'go');
    s = appendToolResults(appendResponse(s, [use('toolu_old')]), [{ type: 'tool_result', tool_use_id: 'toolu_old', content: 'ok' }]);
    // New ids before the repeat, a repeat within the response, an id after a blank-only response: none stays taken.
    expect(() => appendResponse(s, [use('toolu_b'), use('toolu_c'), use('toolu_old')])).toThrow(/duplicate tool_use id "toolu_old"/);
    expect(() => appendResponse(s, [use('toolu_d'), use('toolu_d')])).toThrow(/duplicate tool_use id "toolu_d"/);
    expect(() => appendResponse(s, [{ type: 'text', text: '  ' }])).toThrow(/at least one non-empty block/);
    const next = appendResponse(s, [use('toolu_b'), use('toolu_c'), use('toolu_d')]);
    expect(next.turns[0]!.rounds[1]!.open).toEqual(['toolu_b', 'toolu_c', 'toolu_d']);
    // And the ids of the accepted response are taken from then on.
    const answered = appendToolResults(
      next,
      ['toolu_b', 'toolu_c', 'toolu_d'].map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' })),
    );
    expect(() => appendResponse(answered, [use('toolu_c')])).toThrow(/duplicate tool_use id "toolu_c"/);
    expect(() => appendResponse(answered, [use('toolu_old')])).toThrow(/duplicate tool_use id "toolu_old"/);
  });

  it('names the calls still open when a tool_result answers none of them, and keeps the rest open in order', () => {
    const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: {} });
    const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });
    const s = appendResponse(startTurn(newSession(), 'go'), [use('toolu_1'), use('toolu_2'), use('toolu_3')]);
    expect(() => appendToolResults(s, [result('toolu_2'), result('toolu_9')])).toThrow(
      'turns/1/rounds/1/results/toolu_9: tool_result for unknown tool_use "toolu_9" (open: toolu_1, toolu_3)',
    );
    const all = appendToolResults(s, [result('toolu_1'), result('toolu_2'), result('toolu_3')]);
    expect(() => appendToolResults(all, [result('toolu_9')])).toThrow('(open: none)');
    expect(appendToolResults(s, [result('toolu_3'), result('toolu_1')]).turns[0]!.rounds[0]!.open).toEqual(['toolu_2']);
  });

  it('keeps the tool_use ids of many interleaved conversations apart (more chains than the index holds at once)', () => {
    const call = (id: string) => [{ type: 'tool_use' as const, id, name: 'Read', input: {} }];
    const answer = (s: ReturnType<typeof newSession>, id: string) => appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: 'ok' }]);
    // Seven conversations appended in turn, round by round: each sees its own ids only, whichever were pushed out.
    let chains = Array.from({ length: 7 }, () => startTurn(newSession(), 'go'));
    for (let r = 0; r < 3; r++) chains = chains.map((s, c) => answer(appendResponse(s, call(`toolu_${c}_${r}`)), `toolu_${c}_${r}`));
    chains.forEach((s, c) => {
      for (let r = 0; r < 3; r++) expect(() => appendResponse(s, call(`toolu_${c}_${r}`))).toThrow(/duplicate tool_use id/);
      expect(() => appendResponse(s, call(`toolu_${(c + 1) % 7}_0`))).not.toThrow();
    });
  });

  it('gives blocks stable ids and logical paths', () => {
    const s = session([2]);
    const round = s.turns[0]!.rounds[0]!;
    const call = round.response.find((b) => b.param.type === 'tool_use')!;
    expect(call.path).toBe(`turns/1/rounds/1/calls/${call.id}`);
    expect(round.results[0]!.path).toBe(`turns/1/rounds/1/results/${call.id}`);
    expect(round.response[0]!.path).toBe('turns/1/rounds/1/response/0');
    expect(s.turns[0]!.user[0]!.path).toBe('turns/1/user/0');
    expect(s.envelope.tools[0]!.path).toBe('envelope/tools/Read');
  });

  it('accepts an SDK Message and strips incoming cache markers', () => {
    let s = startTurn(newSession(), [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }]);
    s = appendResponse(s, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      stop_reason: 'end_turn',
      stop_sequence: null,
      content: [{ type: 'text', text: 'Hello!', citations: null }],
      usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    } as never);
    expect(s.turns[0]!.user[0]!.param).toEqual({ type: 'text', text: 'hi' });
    expect(s.turns[0]!.rounds[0]!.response[0]!.param).toEqual({ type: 'text', text: 'Hello!' });
  });

  describe('errors name the path and change nothing', () => {
    const cases: [string, () => unknown, string][] = [
      [
        'tool_result for an unknown tool_use',
        () =>
          appendToolResults(appendResponse(startTurn(newSession(), 'go'), toolResponse(1)), [{ type: 'tool_result', tool_use_id: 'toolu_nope', content: 'x' }]),
        'turns/1/rounds/1/results/toolu_nope: tool_result for unknown tool_use "toolu_nope"',
      ],
      [
        'a tool_use left unanswered when a new round starts',
        () => appendResponse(appendResponse(startTurn(newSession(), 'go'), toolResponse(1)), toolResponse(1)),
        'turns/1/rounds/2: a new round started while tool_use',
      ],
      [
        'a user turn started mid-round',
        () => startTurn(appendResponse(startTurn(newSession(), 'go'), toolResponse(2)), 'again'),
        'turns/1/rounds/1: a user turn started mid-round',
      ],
      [
        'duplicate tool_use ids',
        () => {
          const s = answerAll(appendResponse(startTurn(newSession(), 'go'), [{ type: 'tool_use', id: 'toolu_dup', name: 'Read', input: {} }]));
          return appendResponse(s, [{ type: 'tool_use', id: 'toolu_dup', name: 'Read', input: {} }]);
        },
        'turns/1/rounds/2/calls/toolu_dup: duplicate tool_use id "toolu_dup"',
      ],
      [
        'a tool result answered twice',
        () => {
          const s = appendResponse(startTurn(newSession(), 'go'), [
            { type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} },
            { type: 'tool_use', id: 'toolu_y', name: 'Read', input: {} },
          ]);
          const once = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'a' }]);
          return appendToolResults(once, [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'b' }]);
        },
        'turns/1/rounds/1/results/toolu_x: tool_use "toolu_x" is already answered',
      ],
      ['a response with no turn', () => appendResponse(newSession(), toolResponse(1)), 'turns: no turn is open'],
      [
        'duplicate tool names',
        () =>
          createTimeline({
            model: 'm',
            instructions: ['x'],
            tools: [
              { name: 'A', input_schema: { type: 'object' } },
              { name: 'A', input_schema: { type: 'object' } },
            ],
          }),
        'envelope/tools/A: duplicate tool name',
      ],
      [
        'a tool_result starting a turn (its index counts the kept blocks, not the blank one before)',
        () =>
          startTurn(newSession(), [
            { type: 'text', text: ' ' },
            { type: 'text', text: 'see' },
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'x' },
          ]),
        'turns/1/user/1: a tool_result cannot start a turn',
      ],
      [
        'a user message with only whitespace',
        () => startTurn(newSession(), [{ type: 'text', text: '  \n' }]),
        'turns/1/user: a user message needs at least one block',
      ],
    ];
    for (const [name, run, message] of cases) {
      it(name, () => {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(TimelineError);
        expect((err as TimelineError).message).toContain(message);
        expect((err as TimelineError).path).toBe(message.split(':')[0]);
      });
    }

    it('leaves the previous state untouched after a failed edit', () => {
      const s = appendResponse(startTurn(newSession(), 'go'), toolResponse(2));
      const snapshot = JSON.stringify(s);
      expect(() =>
        appendToolResults(s, [
          { type: 'tool_result', tool_use_id: s.turns[0]!.rounds[0]!.open[0]!, content: 'ok' },
          { type: 'tool_result', tool_use_id: 'bad', content: 'x' },
        ]),
      ).toThrow(TimelineError);
      expect(JSON.stringify(s)).toBe(snapshot);
      expect(s.turns[0]!.rounds[0]!.open).toHaveLength(2);
    });
  });

  it('drops whitespace-only text blocks, which the API refuses, keeping the other blocks’ paths', () => {
    let s = startTurn(newSession(), [
      { type: 'text', text: 'fix it' },
      { type: 'text', text: ' ' },
    ]);
    expect(s.turns[0]!.user).toHaveLength(1);
    s = appendResponse(s, [
      { type: 'text', text: '\n\n' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} },
    ]);
    expect(s.turns[0]!.rounds[0]!.response.map((b) => b.path)).toEqual(['turns/1/rounds/1/calls/toolu_1']);
    s = setTail(s, [
      { type: 'text', text: '' },
      { type: 'text', text: 'budget 40%' },
    ]);
    expect(s.tail.map((b) => b.param)).toEqual([{ type: 'text', text: 'budget 40%' }]);
  });

  it('setTail replaces the tail only: the other keys in order and the same objects, with or without a persistent hidden set', () => {
    const caller = { type: 'text' as const, text: 'budget 40%', cache_control: { type: 'ephemeral' as const } };
    const tool = { type: 'tool_use' as const, id: 'toolu_t', name: 'Read', input: {} };
    const rendered = render(startTurn(newSession(), 'go'), { now: 1_000 }).state;
    const persistent = stateWith(rendered, {}, hiddenSetOf(rendered).with([{ path: 'turns/1/user/0', reason: 'prune', note: 'n', chars: 2 }]));
    for (const base of [startTurn(newSession(), 'go'), rendered, persistent]) {
      const s = setTail(base, [{ type: 'text', text: ' ' }, caller, { type: 'text', text: 'now 10:42' }]);
      expect(Object.keys(s)).toEqual(Object.keys(base));
      for (const k of Object.keys(base).filter((k) => k !== 'tail' && k !== 'hidden')) expect(s[k as keyof typeof s]).toBe(base[k as keyof typeof base]);
      expect(hiddenSetOf(s)).toBe(hiddenSetOf(base));
      // Blank text dropped; paths count the kept blocks; the caller's marker stripped on a frozen copy.
      expect(s.tail.map((b) => [b.id, b.path, b.param])).toEqual([
        ['tail/0', 'tail/0', { type: 'text', text: 'budget 40%' }],
        ['tail/1', 'tail/1', { type: 'text', text: 'now 10:42' }],
      ]);
      expect(Object.isFrozen(s) && Object.isFrozen(s.tail) && s.tail.every((b) => Object.isFrozen(b) && Object.isFrozen(b.param))).toBe(true);
      expect(s.tail[0]!.param).not.toBe(caller);
      expect(Object.isFrozen(caller)).toBe(false);
      expect(() => setTail(base, [{ type: 'text', text: '' }, tool])).toThrow(expect.objectContaining({ path: 'tail/0' }));
      expect(setTail(s, []).tail).toEqual([]);
    }
  });

  it('setTail keeps a block equal to the one at its place (the same object), and copies the others', () => {
    const listing = { type: 'text' as const, text: 'workspace: 3 files modified' };
    const image = { type: 'image' as const, source: { type: 'url' as const, url: 'https://example.com/a.png' } };
    const first = setTail(startTurn(newSession(), 'go'), [listing, image, { type: 'text', text: 'now 10:42' }]);
    // New objects with the same content (a marker on one: the renderer's business), the clock changed.
    const next = setTail(first, [
      { ...listing, cache_control: { type: 'ephemeral' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      { type: 'text', text: 'now 10:43' },
    ]);
    expect(next.tail[0]).toBe(first.tail[0]);
    expect(next.tail[1]).toBe(first.tail[1]);
    expect(next.tail[2]).not.toBe(first.tail[2]);
    expect(next.tail.map((b) => [b.path, b.param])).toEqual([
      ['tail/0', { type: 'text', text: 'workspace: 3 files modified' }],
      ['tail/1', image],
      ['tail/2', { type: 'text', text: 'now 10:43' }],
    ]);
    // Another key order is other bytes; a block that moved is at another path: both copied.
    const moved = setTail(next, [{ type: 'image', source: { url: 'https://example.com/a.png', type: 'url' } }, listing]);
    expect(moved.tail[0]).not.toBe(next.tail[1]);
    expect(JSON.stringify(moved.tail[0]!.param)).toBe('{"type":"image","source":{"url":"https://example.com/a.png","type":"url"}}');
    expect(moved.tail[1]).not.toBe(next.tail[0]);
    expect(moved.tail.map((b) => b.path)).toEqual(['tail/0', 'tail/1']);
    // Places count the kept blocks: after a dropped blank block, the listing is at tail/0 again.
    expect(setTail(next, [{ type: 'text', text: ' ' }, listing]).tail[0]).toBe(next.tail[0]);
    // A nested key named cache_control is content, not a marker: not the same block.
    const nested = { type: 'search_result' as const, source: 's', title: 't', content: [{ type: 'text' as const, text: 'x' }] };
    const withNested = setTail(first, [nested]);
    const again = setTail(withNested, [{ ...nested, content: [{ type: 'text' as const, text: 'x', cache_control: { type: 'ephemeral' as const } }] }]);
    expect(again.tail[0]).not.toBe(withNested.tail[0]);
    expect(again.tail[0]!.param).toEqual({ ...nested, content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] });
    // The same request bytes as a tail set from scratch.
    const fresh = setTail(startTurn(newSession(), 'go'), [listing, image, { type: 'text', text: 'now 10:43' }]);
    expect(JSON.stringify(toAnthropic(render(next, { now: 1_000 }), { max_tokens: 10 }))).toBe(
      JSON.stringify(toAnthropic(render(fresh, { now: 1_000 }), { max_tokens: 10 })),
    );
  });

  it('keeps tool_result blocks before injected text, whatever order they arrive in', () => {
    let s = appendResponse(startTurn(newSession(), 'go'), [
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} },
      { type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} },
    ]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'b' }], ['format error: please retry']);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }]);
    expect(s.turns[0]!.rounds[0]!.results.map((b) => b.path)).toEqual([
      'turns/1/rounds/1/results/toolu_2',
      'turns/1/rounds/1/results/toolu_1',
      'turns/1/rounds/1/results/text-0',
    ]);
  });

  it('malformed input from plain JavaScript is a TimelineError naming where, never a TypeError', () => {
    // Found by review8 (bad input through Session and the pure functions): each was a TypeError from inside the edits.
    const model = 'claude-sonnet-4-6';
    const open = appendResponse(startTurn(createTimeline({ model, instructions: ['x'] }), 'hi'), [{ type: 'tool_use', id: 't', name: 'R', input: {} }]);
    const cases: [() => unknown, string][] = [
      [() => createTimeline({ model, instructions: ['x'], tools: [null as never] }), 'envelope/tools/0'],
      [() => createTimeline({ model, instructions: [5 as never] }), 'envelope/instructions/0'],
      [() => createTimeline({ model } as never), 'envelope/instructions'],
      [() => startTurn(createTimeline({ model, instructions: [] }), null as never), 'turns/1/user'],
      [() => startTurn(createTimeline({ model, instructions: [] }), [{ type: 'text', text: 5 } as never]), 'turns/1/user/0'],
      [() => appendResponse(startTurn(createTimeline({ model, instructions: [] }), 'hi'), null as never), 'turns/1/rounds/1/response'],
      [() => appendResponse(startTurn(createTimeline({ model, instructions: [] }), 'hi'), { role: 'assistant' } as never), 'turns/1/rounds/1/response'],
      [() => appendToolResults(open, null as never), 'turns/1/rounds/1/results'],
      [() => setTail(open, 5 as never), 'tail'],
      [() => setTail(open, [null as never]), 'tail/0'],
      [() => appendToolResults(open, [{ type: 'tool_result', tool_use_id: 't', content: null as never }]), 'turns/1/rounds/1/results/0/content'],
    ];
    expectTimelineErrorPaths(cases);
  });

  it('a whole message where its content belongs says to pass its content (startTurn, tool results, the tail)', () => {
    const model = 'claude-sonnet-4-6';
    const open = appendResponse(startTurn(createTimeline({ model, instructions: ['x'] }), 'hi'), [{ type: 'tool_use', id: 't', name: 'R', input: {} }]);
    const results = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] };
    const cases: [() => unknown, string][] = [
      [() => startTurn(createTimeline({ model, instructions: [] }), { role: 'user', content: 'Fix the test' } as never), 'turns/1/user'],
      [() => startTurn(createTimeline({ model, instructions: [] }), { role: 'user', content: [{ type: 'text', text: 'Fix' }] } as never), 'turns/1/user'],
      [() => appendToolResults(open, results as never), 'turns/1/rounds/1/results'],
      [() => setTail(open, { role: 'user', content: 'now' } as never), 'tail'],
    ];
    expectTimelineErrorPaths(cases);
    for (const [call] of cases) expect(call).toThrow('got a message object: pass its `content`');
    // Anything else keeps the plain message: the hint is for a message, not for every object.
    expect(() => startTurn(createTimeline({ model, instructions: [] }), { text: 'Fix' } as never)).toThrow(/expected an array of content blocks$/);
    // Tool results take no string: a message whose content is one is not told to pass it.
    expect(() => appendToolResults(open, { role: 'user', content: 'ok' } as never)).toThrow(/expected an array of tool_result blocks$/);
  });

  it('names the malformed block by turn, round, index and depth (the path is built only when thrown)', () => {
    const model = 'claude-sonnet-4-6';
    // Turn 1 ended; turn 2 with two answered tool rounds and a third open on t3.
    let s = appendResponse(startTurn(createTimeline({ model, instructions: ['x'] }), 'a'), [{ type: 'text', text: 'done' }]);
    s = startTurn(s, 'b');
    for (const id of ['t1', 't2']) {
      s = appendResponse(s, [{ type: 'tool_use', id, name: 'R', input: {} }]);
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: 'ok' }]);
    }
    const ended = appendResponse(s, [{ type: 'text', text: 'ended' }]);
    const open = appendResponse(s, [
      { type: 'tool_use', id: 't3', name: 'R', input: {} },
      { type: 'tool_use', id: 't4', name: 'R', input: {} },
    ]);
    const result = (content: unknown) => [{ type: 'tool_result' as const, tool_use_id: 't3', content: content as never }];
    const cases: [() => unknown, string][] = [
      [() => appendResponse(s, [{ type: 'text', text: 'ok' }, { type: 'text', text: 5 } as never]), 'turns/2/rounds/3/response/1'],
      [() => startTurn(ended, [{ type: 'text', text: 'ok' }, null as never]), 'turns/3/user/1'],
      [
        () =>
          appendToolResults(
            open,
            result([
              { type: 'text', text: 'ok' },
              { type: 'text', text: 7 },
            ]),
          ),
        'turns/2/rounds/3/results/0/content/1',
      ],
      [() => appendToolResults(open, result(5)), 'turns/2/rounds/3/results/0/content'],
      [
        () => appendToolResults(open, [...result('ok'), { type: 'tool_result', tool_use_id: 't4', content: [{ type: 'text', text: 3 } as never] }]),
        'turns/2/rounds/3/results/1/content/0',
      ],
      [
        () => appendToolResults(open, result([{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 9 }] }])),
        'turns/2/rounds/3/results/0/content/0/content/0',
      ],
      [() => appendToolResults(open, result([{ type: 'tool_result', tool_use_id: 'x', content: 5 }])), 'turns/2/rounds/3/results/0/content/0/content'],
      [
        () =>
          appendToolResults(open, result([{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'tool_result', tool_use_id: 'y', content: [null] }] }])),
        'turns/2/rounds/3/results/0/content/0/content/0/content/0',
      ],
      [() => setTail(open, [{ type: 'text', text: 'ok' }, { type: 'text', text: 1 } as never]), 'tail/1'],
    ];
    expectTimelineErrorPaths(cases);
  });
});

/** Each call throws a TimelineError whose path is the one given. */
function expectTimelineErrorPaths(cases: readonly (readonly [() => unknown, string])[]): void {
  for (const [f, path] of cases) {
    let err: unknown;
    try {
      f();
    } catch (e) {
      err = e;
    }
    expect(err, path).toBeInstanceOf(TimelineError);
    expect((err as TimelineError).path).toBe(path);
  }
}

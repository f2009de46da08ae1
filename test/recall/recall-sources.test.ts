/**
 * recall with nothing to look in: `recallToolResult(id, input, {})` answered the model "No content is stored at
 * path …", blaming the path for the caller's wiring, and `undefined` sources threw a bare TypeError (reading
 * 'store'). Both are now the caller's typed error naming `sources`; the model's own bad input still gets is_error.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { MemoryPayloadStore } from '../../src/recall/memory.js';
import { handleRecall, recallToolResult } from '../../src/recall/recall-tool.js';

const input = { path: 'turns/1/rounds/1/results/toolu_01' };

describe('recall: the sources it looks in', () => {
  it.each([
    ['{}', {}],
    ['undefined', undefined],
    ['null', null],
    ['{ store: undefined, state: undefined }', { store: undefined, state: undefined }],
  ])('refuses %s, naming sources', (_, sources) => {
    for (const call of [() => recallToolResult('toolu_r', input, sources as never), () => handleRecall(input, sources as never)]) {
      let err: unknown;
      try {
        call();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('sources');
      expect((err as Error).message).toContain('recall needs { store }');
    }
  });

  it('still answers the model is_error for its own bad input when a store is given', () => {
    const store = new MemoryPayloadStore();
    expect(recallToolResult('toolu_r', { path: 7 }, { store })).toMatchObject({ is_error: true });
    expect(recallToolResult('toolu_r', input, { store })).toMatchObject({ is_error: true, tool_use_id: 'toolu_r' });
  });
});

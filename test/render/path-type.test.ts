/**
 * A block path that is not a string (a number, undefined: a tool input read without checking, `recall(call.input)`
 * instead of `recall(call.input.path)`) threw a bare TypeError "path.startsWith is not a function" from recall,
 * Session.recall, recallFromConversation, hideBlock and Session.hide. Now an InvalidOptionError naming path.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recallFromConversation } from '../../src/conversation/prepare.js';
import { InvalidOptionError } from '../../src/errors.js';
import { hideBlock, recall } from '../../src/render/hide-block.js';
import { Session } from '../../src/session/session.js';
import type { BlockPath } from '../../src/timeline/types.js';

async function refusal(f: () => unknown): Promise<unknown> {
  try {
    await f();
    return undefined;
  } catch (e) {
    return e;
  }
}

describe('a block path that is not a string is refused naming path', () => {
  const session = new Session({ model: 'claude-sonnet-4-6', instructions: ['x'] }).startTurn('hi there');
  const store = new MemoryConversationStore();

  for (const path of [42, undefined, { path: 'turns/1/user/0' }]) {
    it(`${JSON.stringify(path)}`, async () => {
      await prepare({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }, { conversationId: 'c', store });
      const p = path as unknown as BlockPath;
      for (const f of [
        () => recall(session.state, p),
        () => session.recall(p),
        () => recallFromConversation(p, { conversationId: 'c', store }),
        () => hideBlock(session.state, p),
        () => session.hide(p),
      ]) {
        const err = await refusal(f);
        expect(err).toBeInstanceOf(InvalidOptionError);
        expect((err as InvalidOptionError).option).toBe('path');
      }
    });
  }

  it('a string path still reads back (control)', () => {
    expect(recall(session.state, 'turns/1/user/0')).toEqual({ type: 'text', text: 'hi there' });
  });
});

/**
 * A loop that cuts its history back and then sends the messages it cut again, on a model that binds thinking to its
 * prefix, with a tail per request: the first response re-sent past the cut was produced under the request before the
 * cut (its own tail kept in the history), not under the cut request, so `prepare` must not vouch for its thinking
 * (ConversationRecord.cutMessage). A response that does answer the cut request (a retry's new answer) keeps its
 * thinking. Every request must be accepted by the fake server's binding check, through a store that keeps the record
 * in process (memory) and one that writes it as JSON (file: exportState / importState).
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { answerWithResult as answer, bindingScript, bindingSender } from '../helpers/binding.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const stores: Record<string, () => ConversationStore> = {
  memory: () => new MemoryConversationStore(),
  file: () => new FileConversationStore({ dir: mkdtempSync(join(tmpdir(), 'cut-branch-')) }),
};

async function conversation(model: string, store: ConversationStore) {
  server = await startFakeServer({ script: bindingScript(1, 12, 0) });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const { send, log } = bindingSender(client, store, model, 'branch', true);
  const history: Anthropic.MessageParam[] = [{ role: 'user', content: `Tidy up. ${'context '.repeat(3000)}` }];
  for (let k = 0; k < 4; k++) history.push(...answer((await send([...history])).message));
  return { send, answer, history, log };
}

describe('messages sent again past a cut, on a model that binds thinking, with a tail', () => {
  for (const model of ['claude-sonnet-5-5', 'claude-haiku-5-5']) {
    for (const [kind, make] of Object.entries(stores)) {
      it(`${model}, ${kind} store: a rewind, then the whole array again`, async () => {
        const { send, answer, history, log } = await conversation(model, make());
        const cut = await send(history.slice(0, -4));
        expect(cut.plan.resync?.reason).toBe('history_truncated');
        // The loop throws the rewind's answer away and goes on with the messages it had.
        const back = await send([...history]);
        expect(back.plan.thinkingLost?.blocks, log.join('\n')).toBeGreaterThan(0);
        history.push(...answer(back.message));
        const next = await send([...history]);
        expect(next.plan.thinkingLost, log.join('\n')).toBeUndefined();
        expect(next.message.usage.cache_read_input_tokens, log.join('\n')).toBeGreaterThan(0);
      });

      it(`${model}, ${kind} store: a retry's new answer, then the branch it replaced`, async () => {
        const { send, answer, history, log } = await conversation(model, make());
        const retried = history.slice(0, -4);
        const retry = await send([...retried]);
        // The answer to the cut request is vouched for: its thinking stays.
        const onRetry = await send([...retried, ...answer(retry.message)]);
        expect(onRetry.plan.thinkingLost, log.join('\n')).toBeUndefined();
        // The loop goes back to the branch the retry replaced (an edit at the retry's answer).
        const back = await send([...history]);
        expect(back.plan.resync?.reason, log.join('\n')).toBe('history_edited');
      });
    }
  }
});

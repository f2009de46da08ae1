/**
 * A retry that drops the last response (history_truncated: the loop re-sends the request before it), on a model that
 * binds thinking to its prefix, with and without a tail. The cut's shadow (cut-shadow.ts) is made from the entries
 * the previous request left past the cut; on these models one sits on the tail that request sent (kept in the
 * history: render/cache-points.ts), past its stable stream, where prepare read a block that is not there and threw a
 * TypeError. Every request must be accepted, with ≤ 4 markers.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { answerWithResult as answer, bindingScript, bindingSender } from '../helpers/binding.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a retry that drops the last response, on a model that binds thinking', () => {
  for (const model of ['claude-sonnet-5-5', 'claude-haiku-5-5']) {
    for (const tail of [true, false]) {
      it(`${model}, ${tail ? 'a tail per request' : 'no tail'}: prepared and accepted`, async () => {
        server = await startFakeServer({ script: bindingScript(1, 8, 0) });
        const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
        const store = new MemoryConversationStore();
        const sender = bindingSender(client, store, model, 'retry', tail);
        const send = async (messages: Anthropic.MessageParam[]) => (await sender.send(messages)).message;
        const log = sender.log;
        const history: Anthropic.MessageParam[] = [{ role: 'user', content: `Tidy up. ${'context '.repeat(3000)}` }];
        for (let k = 0; k < 4; k++) history.push(...answer(await send([...history])));
        // A retry that drops the last response the conversation holds (the loop re-sends the request before it), then
        // goes on from the retry's answer.
        const retried = history.slice(0, -4);
        for (let k = 0; k < 3; k++) retried.push(...answer(await send([...retried])));
        expect(log.length).toBe(7);
        expect(log[4]).toContain('resync=history_truncated');
      });
    }
  }
});

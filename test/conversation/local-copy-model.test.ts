/**
 * The process's copy as a cache hint after a deleted record (local-copy.ts withLedgerHint) is this model's only: the
 * provider's cache entries are per model, so after the record is deleted and the loop goes on with another model, the
 * request is rendered from the messages alone with no entry claimed (the plan predicts what the provider reads). A
 * retry of the last request after the delete cuts nothing back: rendered from its messages, read as predicted.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { BASE, requests } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A file store and a cache simulator after the loop's first `n` requests of conversation `id`, 5 s apart from
 * t = 1,000,000; `at`: the time of the request after them.
 */
async function sentThen(base: typeof BASE, loop: readonly unknown[][], n: number, id: string) {
  const dir = mkdtempSync(join(tmpdir(), `local-copy-${id}-`));
  dirs.push(dir);
  const store = new FileConversationStore({ dir });
  const sim = new CacheSimulator();
  for (let k = 0; k < n; k++) {
    const at = 1_000_000 + k * 5_000;
    sim.send((await prepare({ ...base, messages: loop[k]! as MessageParam[] }, { conversationId: id, store, now: at })).params as never, at);
  }
  return { store, sim, at: 1_000_000 + n * 5_000 };
}

describe("the copy's ledger after a deleted record", () => {
  it('is no hint for another model: nothing of its entries is claimed, as the provider reads nothing', async () => {
    const loop = requests(1, 30, 400);
    const { store, sim, at } = await sentThen(BASE, loop, 25, 'm');
    await store.delete('m');
    const other = { ...BASE, model: 'claude-sonnet-4-5' };
    const { params, plan } = await prepare({ ...other, messages: loop[25]! as MessageParam[] }, { conversationId: 'm', store, now: at });
    const r = sim.send(params as never, at);
    expect(plan.resync?.reason).toBe('no_stored_state');
    expect(r.usage!.cache_read_input_tokens).toBe(0);
    expect(plan.usage.cache_read_input_tokens).toBe(0);
  });

  it('a retry of the last request after the delete (the same messages, nothing cut back) is rendered from them, as the provider reads it', async () => {
    const loop = requests(1, 12, 400);
    const model = { ...BASE, model: 'claude-opus-5-5' };
    const { store, sim, at } = await sentThen(model, loop, 10, 'r');
    await store.delete('r');
    const { params, plan } = await prepare({ ...model, messages: loop[9]! as MessageParam[] }, { conversationId: 'r', store, now: at });
    const r = sim.send(params as never, at);
    expect(r.rejected).toBeNull();
    expect(plan.resync?.reason).toBe('no_stored_state');
    expect(r.usage!.cache_read_input_tokens).toBe(plan.usage.cache_read_input_tokens);
    expect(r.explain?.bust).toBe(false);
  });
});

/** FileConversationStore beyond the shared contract: a directory that cannot be created (yet). */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { ConversationStoreError } from '../../src/errors.js';
import { BASE } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('FileConversationStore', () => {
  it('a directory it cannot create is a typed error naming the conversation, and the store works once the directory can be made', async () => {
    // The store's directory is a link to a volume that is not there yet (a mount not ready at start):
    // mkdir fails with ENOENT whoever runs the test (root included), until the target exists.
    const root = mkdtempSync(join(tmpdir(), 'cachepoint-file-store-'));
    dirs.push(root);
    const target = join(root, 'volume', 'conversations');
    const dir = join(root, 'link');
    symlinkSync(target, dir);
    const store = new FileConversationStore({ dir });
    const params = { ...BASE, messages: [{ role: 'user' as const, content: 'Fix the tests.' }] };

    const down = await prepare(params, { conversationId: 'task-1', store, now: 1000 });
    expect(down.plan.unsaved).toMatch(/conversation "task-1": cannot create/);
    const thrown = await prepare(params, { conversationId: 'task-1', store, now: 2000, onStoreError: 'throw' }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConversationStoreError);
    expect((thrown as Error).message).toContain(dir);

    mkdirSync(target, { recursive: true });
    const up = await prepare(params, { conversationId: 'task-1', store, now: 3000 });
    expect(up.plan.unsaved).toBeUndefined();
    expect((await store.load('task-1'))?.revision).toBe(1);
  });
});

/** FileConversationStore beyond the shared contract: a directory that cannot be created (yet), its lock options. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationFileName, FileConversationStore } from '../../src/conversation/file-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { ConversationStateError, ConversationStoreError, InvalidOptionError } from '../../src/errors.js';
import { BASE } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store in a fresh directory holding one prepared conversation `id`, the params it was prepared with, and its file. */
async function storedConversation(id: string, options: { lockTimeoutMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cachepoint-file-store-'));
  dirs.push(dir);
  const store = new FileConversationStore({ dir, ...options });
  const params = { ...BASE, messages: [{ role: 'user' as const, content: 'Fix the tests.' }] };
  await prepare(params, { conversationId: id, store, now: 1000 });
  return { store, params, path: join(dir, conversationFileName(id)) };
}

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

  it('lock options that can never work are refused when the store is made, naming the option', () => {
    // lockTimeoutMs NaN or a string (an environment variable passed as is): the deadline never came and a save
    // behind a live writer's lock waited forever. staleLockMs 0 or less: a live writer's fresh lock counted as
    // stale and was broken, so two writers saved at once.
    const bad: Record<string, unknown>[] = [
      { lockTimeoutMs: Number.NaN },
      { lockTimeoutMs: '200' },
      { lockTimeoutMs: -1 },
      { staleLockMs: 0 },
      { staleLockMs: -5 },
      { staleLockMs: Number.NaN },
      { staleLockMs: '30000' },
    ];
    for (const options of bad) {
      const [option] = Object.keys(options);
      const thrown = (() => {
        try {
          new FileConversationStore({ dir: '/tmp/never-made', ...options });
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect((thrown as InvalidOptionError).option).toBe(option);
    }
    // The limits themselves are fine: fail at once, never break a lock.
    expect(() => new FileConversationStore({ dir: '/tmp/never-made', lockTimeoutMs: 0, staleLockMs: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it("a save behind a live writer's lock fails after lockTimeoutMs with a typed error, and does not break that lock", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachepoint-file-store-'));
    dirs.push(dir);
    const store = new FileConversationStore({ dir, lockTimeoutMs: 20 });
    const params = { ...BASE, messages: [{ role: 'user' as const, content: 'Fix the tests.' }] };
    await prepare(params, { conversationId: 'task-2', store, now: 1000 });
    writeFileSync(join(dir, `${conversationFileName('task-2')}.lock`), '12345'); // another writer, alive: its lock is fresh
    const next = { ...params, messages: [...params.messages, { role: 'assistant' as const, content: 'Done.' }, { role: 'user' as const, content: 'Thanks.' }] };
    const thrown = await prepare(next, { conversationId: 'task-2', store, now: 2000, onStoreError: 'throw' }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConversationStoreError);
    expect((thrown as Error).message).toMatch(/another writer holds .*\.lock for more than 20 ms/);
    expect((await store.load('task-2'))?.revision).toBe(1);
  });

  it('a save whose lock was broken as stale while it held it (a stalled writer) writes nothing and leaves the new holder its lock', async () => {
    // The stall is real: the conversation's file is a named pipe, so the save's read under its lock blocks until this
    // test writes the record into it. Meanwhile another writer takes the lock over, as a waiter does once the lock is
    // older than staleLockMs. Before, the stalled save renamed its record over whatever that writer had saved (a lost
    // update, silently) and then deleted that writer's lock.
    const { store, path } = await storedConversation('task-3');
    const lock = `${path}.lock`;
    const stored = readFileSync(path, 'utf8');
    const record = (await store.load('task-3'))!;
    renameSync(path, `${path}.kept`);
    execFileSync('mkfifo', [path]);
    const saving = store.save({ ...record, revision: 2 }, 1).catch((e: unknown) => e);
    // The save holds its lock (its pid written) and now waits on the pipe.
    while (!/^\d+/.test(existsSync(lock) ? readFileSync(lock, 'utf8') : '')) await new Promise((r) => setImmediate(r));
    writeFileSync(lock, 'another-writer'); // broken as stale and taken by another writer
    await writeFile(path, stored); // the stalled read goes on
    const thrown = await saving;
    expect(thrown).toBeInstanceOf(ConversationStoreError);
    expect((thrown as Error).message).toMatch(/lock on .* was broken as stale .* nothing written/);
    expect(readFileSync(lock, 'utf8')).toBe('another-writer');
  });
  it('delete waits for the lock: while another writer holds it, the record stays (lockTimeoutMs 0: a typed error at once)', async () => {
    // Before, delete removed the file without the lock: a save under way then renamed its record back (the delete
    // undone, silently) or, had it loaded before the delete, saved a revision over a conversation the caller had removed.
    const { store, path } = await storedConversation('task-4', { lockTimeoutMs: 0 });
    writeFileSync(`${path}.lock`, 'another-writer'); // a writer is between its load and its rename
    const thrown = await store.delete('task-4').catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConversationStoreError);
    expect((thrown as Error).message).toMatch(/another writer holds .*\.lock/);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('another-writer'); // not taken from its holder
    rmSync(`${path}.lock`); // the writer is done
    await store.delete('task-4');
    expect(await store.load('task-4')).toBeUndefined();
    expect(existsSync(`${path}.lock`)).toBe(false); // its own lock released
  });

  it('a delete during a save (a real writer stalled under its lock) comes after it: the conversation is gone, not saved back', async () => {
    const { store, path } = await storedConversation('task-5', { lockTimeoutMs: Number.POSITIVE_INFINITY });
    const stored = readFileSync(path, 'utf8');
    const record = (await store.load('task-5'))!;
    renameSync(path, `${path}.kept`);
    execFileSync('mkfifo', [path]);
    const saving = store.save({ ...record, revision: 2 }, 1);
    while (!/^\d+/.test(existsSync(`${path}.lock`) ? readFileSync(`${path}.lock`, 'utf8') : '')) await new Promise((r) => setImmediate(r));
    const pipe = await open(path, 'w'); // the save's read is open on the pipe, waiting for the record
    const deleting = store.delete('task-5');
    await pipe.writeFile(stored);
    await pipe.close();
    await saving;
    await deleting;
    expect(await store.load('task-5')).toBeUndefined();
  });
  it('a damaged record names its file, so the user knows what to delete (review13, found and left 4)', async () => {
    const { store, params, path } = await storedConversation('task-6');
    writeFileSync(path, '{"format": "cachepoint.conversation", "vers');
    for (const thrown of [
      await store.load('task-6').catch((e: unknown) => e),
      await prepare(params, { conversationId: 'task-6', store, now: 2000 }).catch((e: unknown) => e),
    ]) {
      expect(thrown).toBeInstanceOf(ConversationStateError);
      expect((thrown as ConversationStateError).reason).toBe('corrupt');
      expect((thrown as Error).message).toContain('conversation "task-6"');
      expect((thrown as Error).message).toContain(path);
    }
  });
});

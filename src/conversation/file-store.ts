/**
 * Conversations as files, one per conversation, in a directory several
 * processes may share (one machine, or a shared volume). A save takes a lock
 * file (created exclusively), checks the stored revision, writes a temporary
 * file and renames it over the old one, so a reader never sees half a record
 * and two writers never interleave: the second gets a typed conflict. A writer
 * that stalls past `staleLockMs` under its lock (a paused process, a slow
 * volume) may have it broken by another; it then finds the lock no longer its
 * own before the rename and writes nothing (a typed error), and it never
 * removes a lock it does not hold. A delete takes the lock too, so a save under
 * way is never renamed back over it.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationConflictError, ConversationStateError, ConversationStoreError, InvalidOptionError } from '../errors.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import { exportState, importState } from './state.js';
import type { ConversationRecord, ConversationStore } from './types.js';

// TYPES

/** Options of {@link FileConversationStore}. */
export interface FileConversationStoreOptions {
  /** The directory (created when missing). */
  readonly dir: string;
  /** How long a save waits for another writer's lock before failing (ms ≥ 0, default 5,000). */
  readonly lockTimeoutMs?: number;
  /** A lock older than this is left over by a crashed writer and is broken (ms > 0, default 30,000; `Infinity`: never). */
  readonly staleLockMs?: number;
}

// IMPLEMENTATION

/** A file name for any id: readable when it is short and plain, a hash otherwise (never a path). */
export function conversationFileName(id: string): string {
  const plain = encodeURIComponent(id).replace(/\./g, '%2E').replace(/\*/g, '%2A');
  return plain.length <= 180 ? `c-${plain}.json` : `h-${createHash('sha256').update(id).digest('hex')}.json`;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lock duration option: a number ≥ 0 (> 0 when `positive`). */
function lockMs(option: string, value: unknown, fallback: number, positive: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(positive ? value > 0 : value >= 0)) {
    const expected = positive ? 'a number of milliseconds > 0 (Infinity: never break a lock)' : 'a number of milliseconds ≥ 0';
    throw new InvalidOptionError(option, `must be ${expected}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`, { value, expected });
  }
  return value;
}

/**
 * Conversation store in a directory.
 *
 * @example
 * const store = new FileConversationStore({ dir: '.cachepoint/conversations' });
 * const { params } = await prepare(body, { conversationId: 'chat-42', store });
 */
export class FileConversationStore implements ConversationStore {
  readonly #dir: string;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  #ready: Promise<unknown> | undefined;

  constructor(options: FileConversationStoreOptions) {
    refuseUnknownKeys(options, optionKeys<FileConversationStoreOptions>({ dir: true, lockTimeoutMs: true, staleLockMs: true }));
    if (typeof options?.dir !== 'string' || options.dir.length === 0) throw new InvalidOptionError('dir', 'a directory path is required');
    this.#dir = options.dir;
    // A NaN or string timeout never came due (a save waited forever); a stale age ≤ 0 broke live writers' locks.
    this.#lockTimeoutMs = lockMs('lockTimeoutMs', options.lockTimeoutMs, 5_000, false);
    this.#staleLockMs = lockMs('staleLockMs', options.staleLockMs, 30_000, true);
  }

  #path(id: string): string {
    return join(this.#dir, conversationFileName(id));
  }

  async load(id: string): Promise<ConversationRecord | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path(id), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ConversationStoreError(id, `cannot read ${this.#path(id)}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return importState(text, id);
    } catch (err) {
      // Which file: the id is encoded or hashed into its name (conversationFileName), so say it.
      if (!(err instanceof ConversationStateError)) throw err;
      const detail = err.message.slice(`conversation "${id}": `.length);
      throw new ConversationStateError(id, err.reason, `${detail} (the file ${this.#path(id)})`, { cause: err });
    }
  }

  async #lock(id: string): Promise<{ held: () => Promise<boolean>; release: () => Promise<void> }> {
    // A failure is not kept: a directory that cannot be made now (a volume not mounted yet) may be later.
    this.#ready ??= mkdir(this.#dir, { recursive: true }).catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    try {
      await this.#ready;
    } catch (err) {
      throw new ConversationStoreError(id, `cannot create ${this.#dir}: ${(err as Error).message}`, { cause: err });
    }
    const lock = `${this.#path(id)}.lock`;
    // Whose lock it is: a writer that stalled past staleLockMs may find its lock broken and taken by another.
    const token = `${process.pid}:${Math.random().toString(36).slice(2)}`;
    const held = async () => (await readFile(lock, 'utf8').catch(() => undefined)) === token;
    const deadline = Date.now() + this.#lockTimeoutMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        const handle = await open(lock, 'wx');
        await handle.writeFile(token);
        await handle.close();
        return {
          held,
          // Never another writer's lock: removing it would let a third writer in beside that one.
          release: async () => {
            if (await held()) await unlink(lock).catch(() => undefined);
          },
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new ConversationStoreError(id, `cannot lock ${lock}: ${(err as Error).message}`, { cause: err });
        }
      }
      // A lock left by a crashed writer is broken once it is old enough.
      const info = await stat(lock).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > this.#staleLockMs) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new ConversationStoreError(id, `another writer holds ${lock} for more than ${this.#lockTimeoutMs} ms`);
      await pause(wait);
    }
  }

  async save(record: ConversationRecord, expected: number | null): Promise<void> {
    const text = exportState(record);
    const lock = await this.#lock(record.id);
    try {
      const current = await this.load(record.id);
      const actual = current?.revision ?? null;
      if (actual !== expected) throw new ConversationConflictError(record.id, expected, actual);
      if (current && current.incarnation !== record.incarnation) throw new ConversationConflictError(record.id, expected, actual, true);
      const path = this.#path(record.id);
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        await writeFile(tmp, text);
      } catch (err) {
        await rm(tmp, { force: true });
        throw new ConversationStoreError(record.id, `cannot write ${path}: ${(err as Error).message}`, { cause: err });
      }
      // Checked last: a save that stalled past staleLockMs had its lock broken, and the writer that took it may have
      // saved since; renaming now would silently drop that save.
      if (!(await lock.held())) {
        await rm(tmp, { force: true });
        throw new ConversationStoreError(
          record.id,
          `the lock on ${path} was broken as stale (older than staleLockMs, ${this.#staleLockMs} ms) while this save held it; nothing written`,
        );
      }
      try {
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw new ConversationStoreError(record.id, `cannot write ${path}: ${(err as Error).message}`, { cause: err });
      }
    } finally {
      await lock.release();
    }
  }

  /** Removes the conversation under its lock: a save under way finishes first, and one that loaded before gets a conflict. */
  async delete(id: string): Promise<void> {
    const lock = await this.#lock(id);
    try {
      await rm(this.#path(id), { force: true });
    } catch (err) {
      throw new ConversationStoreError(id, `cannot delete ${this.#path(id)}: ${(err as Error).message}`, { cause: err });
    } finally {
      await lock.release();
    }
  }
}

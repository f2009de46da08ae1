/**
 * A durable payload store: one JSON file per path in one folder.
 *
 * - **Safe names.** A path is validated ({@link assertSafePath}) and then
 *   encoded into a single flat file name: `[a-z0-9_-]` kept, `/` → `+`, an
 *   upper-case letter → `^` + its lower case (so case-insensitive file systems
 *   cannot merge two tool ids), any other byte → `%XX`. No name can contain a
 *   separator or be `.`/`..`, so nothing is ever written outside the folder.
 * - **Durable writes.** Each write goes to a temporary file in the same folder,
 *   is fsynced, then renamed over the target (atomic on POSIX): a crash leaves
 *   the old file or the new one, never half of one.
 * - **Index in memory.** The folder is read once at construction (path, turn,
 *   reason and a hash of each payload); payloads are read from disk on `get`
 *   and `search`, so memory stays small however much was forgotten.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { freeze } from 'immer';
import type { BlockPath } from '../timeline/types.js';
import { PayloadStoreError } from './errors.js';
import { byTurnThenPath } from './memory.js';
import { assertSafePath, comparePaths, turnOf } from './paths.js';
import { payloadText, rank } from './search.js';
import type { PayloadStore, PutMeta, PutStatus, SearchHit, SearchOptions, StoredPayload, StoreReason } from './types.js';

/** Options of {@link FilePayloadStore}. */
export interface FilePayloadStoreOptions {
  /** fsync each file (and the folder) before the rename (default true). Off only for throwaway stores. */
  readonly fsync?: boolean;
}

/** The file format (version 1). */
interface FileRecord {
  readonly v: 1;
  readonly path: BlockPath;
  readonly turn?: number;
  readonly reason: StoreReason;
  readonly payload: ContentBlockParam;
}

interface IndexEntry {
  readonly path: BlockPath;
  readonly turn?: number | undefined;
  readonly reason: StoreReason;
  readonly file: string;
  /** sha256 of the payload's JSON: `put` of the same bytes is `unchanged` without reading the file. */
  readonly hash: string;
}

const SUFFIX = '.json';
const TEMP_PREFIX = '.tmp-';
/** File names stay well under the common 255-byte limit; longer encodings end in a hash. */
const MAX_NAME = 200;

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * The file name of a path (validated first).
 *
 * @throws {UnsafePathError} for paths a store refuses
 * @example
 * fileNameOf('turns/3/rounds/2/results/toolu_01Ab'); // 'turns+3+rounds+2+results+toolu_01^ab.json'
 */
export function fileNameOf(path: BlockPath): string {
  assertSafePath(path);
  let name = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const c = String.fromCharCode(byte);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '_' || c === '-') name += c;
    else if (c >= 'A' && c <= 'Z') name += `^${c.toLowerCase()}`;
    else if (c === '/') name += '+';
    else name += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (name.length > MAX_NAME) name = `${name.slice(0, MAX_NAME - 66)}#${sha256(path)}`;
  return name + SUFFIX;
}

/**
 * Payloads on disk, one file per path under `dir` (created if missing).
 * Reopening the same folder finds everything stored before.
 *
 * @throws {PayloadStoreError} when the folder cannot be created or read, or holds a file that is not a payload record
 * @example
 * const store = new FilePayloadStore('.cachepoint/payloads');
 * recordState(store, rendered.state);
 */
export class FilePayloadStore implements PayloadStore {
  readonly dir: string;
  readonly #fsync: boolean;
  readonly #index = new Map<BlockPath, IndexEntry>();
  readonly #turns = new Map<number, Set<BlockPath>>();
  #temp = 0;

  constructor(dir: string, options: FilePayloadStoreOptions = {}) {
    this.dir = dir;
    this.#fsync = options.fsync ?? true;
    let names: string[];
    try {
      mkdirSync(dir, { recursive: true });
      names = readdirSync(dir);
    } catch (cause) {
      throw new PayloadStoreError(dir, 'io', `cannot create or read the store folder: ${(cause as Error).message}`, { cause });
    }
    for (const name of names.sort()) {
      // A temp file is a write in flight (another process) or the leftover of a crash between write and
      // rename; either way the target file is intact, so it is skipped, not deleted.
      if (name.startsWith(TEMP_PREFIX) || !name.endsWith(SUFFIX)) continue;
      const record = this.#read(name, name);
      this.#remember({ path: record.path, turn: record.turn, reason: record.reason, file: name, hash: sha256(JSON.stringify(record.payload)) });
    }
  }

  put(path: BlockPath, payload: ContentBlockParam, meta: PutMeta): PutStatus {
    const file = fileNameOf(path);
    const json = JSON.stringify(payload);
    const hash = sha256(json);
    const turn = turnOf(path, meta.turn);
    const old = this.#index.get(path);
    if (old && old.hash === hash && old.turn === turn && old.reason === meta.reason) return 'unchanged';
    const record = `{"v":1,"path":${JSON.stringify(path)},${turn === undefined ? '' : `"turn":${turn},`}"reason":${JSON.stringify(meta.reason)},"payload":${json}}\n`;
    this.#write(path, file, record);
    this.#remember({ path, turn, reason: meta.reason, file, hash });
    return old ? 'replaced' : 'added';
  }

  get(path: BlockPath): StoredPayload | undefined {
    const entry = this.#index.get(path);
    if (!entry) return undefined;
    const record = this.#read(entry.file, path);
    const payload = freeze(record.payload, true);
    return Object.freeze(
      entry.turn === undefined ? { path, payload, reason: entry.reason } : { path, payload, turn: entry.turn, reason: entry.reason },
    );
  }

  has(path: BlockPath): boolean {
    return this.#index.has(path);
  }

  paths(): readonly BlockPath[] {
    return [...this.#index.values()].sort(byTurnThenPath).map((e) => e.path);
  }

  byTurn(turn: number): readonly BlockPath[] {
    return [...(this.#turns.get(turn) ?? [])].sort(comparePaths);
  }

  search(query: string, options: SearchOptions = {}): readonly SearchHit[] {
    const self = this;
    function* docs() {
      for (const e of self.#index.values()) yield { path: e.path, text: payloadText(self.#read(e.file, e.path).payload) };
    }
    return rank(docs(), query, options.limit);
  }

  /** Number of stored payloads. */
  get size(): number {
    return this.#index.size;
  }

  #remember(entry: IndexEntry): void {
    const old = this.#index.get(entry.path);
    if (old?.turn !== undefined) this.#turns.get(old.turn)?.delete(entry.path);
    this.#index.set(entry.path, entry);
    if (entry.turn !== undefined) {
      let set = this.#turns.get(entry.turn);
      if (!set) this.#turns.set(entry.turn, (set = new Set()));
      set.add(entry.path);
    }
  }

  #read(file: string, path: string): FileRecord {
    let text: string;
    try {
      text = readFileSync(join(this.dir, file), 'utf8');
    } catch (cause) {
      throw new PayloadStoreError(path, 'io', `cannot read ${file} in ${this.dir}: ${(cause as Error).message}`, { cause });
    }
    let record: FileRecord;
    try {
      record = JSON.parse(text) as FileRecord;
    } catch (cause) {
      throw new PayloadStoreError(path, 'corrupt', `${file} in ${this.dir} is not valid JSON; delete it or restore it from a backup`, { cause });
    }
    if (record === null || typeof record !== 'object' || record.v !== 1 || typeof record.path !== 'string' || typeof record.payload !== 'object') {
      throw new PayloadStoreError(path, 'corrupt', `${file} in ${this.dir} is not a payload record (version 1)`);
    }
    // The name must be the one this path encodes to: a renamed or planted file is not trusted.
    if (fileNameOf(record.path) !== file) {
      throw new PayloadStoreError(path, 'corrupt', `${file} in ${this.dir} holds the path ${JSON.stringify(record.path)}, which belongs in ${fileNameOf(record.path)}`);
    }
    return record;
  }

  #write(path: string, file: string, text: string): void {
    const temp = join(this.dir, `${TEMP_PREFIX}${process.pid}-${++this.#temp}-${file}`);
    try {
      const fd = openSync(temp, 'w', 0o644);
      try {
        writeSync(fd, text);
        if (this.#fsync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, join(this.dir, file));
      if (this.#fsync) this.#syncDir();
    } catch (cause) {
      rmSync(temp, { force: true });
      throw new PayloadStoreError(path, 'io', `cannot write ${file} in ${this.dir}: ${(cause as Error).message}`, { cause });
    }
  }

  /** Makes the rename itself durable. Some platforms cannot open a folder for fsync; the rename is still atomic there. */
  #syncDir(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.dir, 'r');
      fsyncSync(fd);
    } catch {
      // Not supported (e.g. Windows): nothing more to do.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

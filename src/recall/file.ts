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
 * - **A bad file costs only itself.** A torn or foreign file, a symbolic link
 *   (dangling, or pointing anywhere, even at a valid record: links are never
 *   followed) or a folder where a record should be is reported
 *   ({@link FilePayloadStore.problems}, `onProblem`) and moved into
 *   `.quarantine/` inside the folder; every other payload stays recallable.
 *   Temp files left by a crash (their process is gone, or they are over an
 *   hour old) are removed when the folder is opened.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlockParam } from '../providers/anthropic-types.js';
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
  /** Called for each bad file found (default: a process warning, code `CACHEPOINT_PAYLOAD_QUARANTINED`). */
  readonly onProblem?: (problem: FileStoreProblem) => void;
}

/** A file the store could not use: what it was, why, and where it went. */
export interface FileStoreProblem {
  /** The file name inside the store folder. */
  readonly file: string;
  /** `corrupt`: not a readable record for its name; `link`: a symbolic link; `not_a_file`: a folder or device; `io`: unreadable. */
  readonly kind: 'corrupt' | 'link' | 'not_a_file' | 'io';
  readonly message: string;
  /** Where it was moved (inside `.quarantine/`), or undefined if it could not be moved. */
  readonly quarantinedAs: string | undefined;
}

/** Where bad files go, inside the store folder. */
export const QUARANTINE_DIR = '.quarantine';
/** Temp files older than this are leftovers whatever their process (it may be on another host). */
const STALE_TEMP_MS = 60 * 60 * 1000;

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
  readonly #problems: FileStoreProblem[] = [];
  readonly #onProblem: (problem: FileStoreProblem) => void;
  #temp = 0;

  constructor(dir: string, options: FilePayloadStoreOptions = {}) {
    this.dir = dir;
    this.#fsync = options.fsync ?? true;
    this.#onProblem =
      options.onProblem ??
      ((p) =>
        process.emitWarning(`payload store ${dir}: ${p.message}${p.quarantinedAs ? `; moved to ${p.quarantinedAs}` : ''}`, {
          code: 'CACHEPOINT_PAYLOAD_QUARANTINED',
        }));
    let names: string[];
    try {
      mkdirSync(dir, { recursive: true });
      names = readdirSync(dir);
    } catch (cause) {
      throw new PayloadStoreError(dir, 'io', `cannot create or read the store folder: ${(cause as Error).message}`, { cause });
    }
    for (const name of names.sort()) {
      // A temp file is a write in flight (another process) or the leftover of a crash between write and
      // rename; either way the target file is intact. Leftovers are removed; writes in flight are left alone.
      if (name.startsWith(TEMP_PREFIX)) {
        this.#removeIfLeftover(name);
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      const record = this.#tryRead(name, name);
      if (record === undefined) continue;
      this.#remember({ path: record.path, turn: record.turn, reason: record.reason, file: name, hash: sha256(JSON.stringify(record.payload)) });
    }
  }

  /** The bad files found so far (each also passed to `onProblem`), oldest first. */
  get problems(): readonly FileStoreProblem[] {
    return this.#problems;
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

  /** The payload at `path`; undefined when none is stored, or when its file turned out bad (reported, quarantined). */
  get(path: BlockPath): StoredPayload | undefined {
    const entry = this.#index.get(path);
    if (!entry) return undefined;
    const record = this.#tryRead(entry.file, path);
    if (record === undefined) return undefined;
    const payload = freeze(record.payload, true);
    return Object.freeze(entry.turn === undefined ? { path, payload, reason: entry.reason } : { path, payload, turn: entry.turn, reason: entry.reason });
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
      for (const e of [...self.#index.values()]) {
        const record = self.#tryRead(e.file, e.path);
        if (record !== undefined) yield { path: e.path, text: payloadText(record.payload) };
      }
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

  /** Reads a record; a bad file is reported, quarantined and forgotten (undefined). */
  #tryRead(file: string, path: string): FileRecord | undefined {
    try {
      return this.#read(file, path);
    } catch (err) {
      if (!(err instanceof PayloadStoreError)) throw err;
      const kind = err instanceof BadFileError ? err.kind : err.reason === 'io' ? 'io' : 'corrupt';
      // An unreadable file for a reason other than its content (permissions, a full disk) stays where it is.
      const quarantinedAs = kind === 'io' ? undefined : this.#quarantine(file);
      const problem: FileStoreProblem = { file, kind, message: err.message, quarantinedAs };
      this.#problems.push(problem);
      for (const [p, e] of this.#index) {
        if (e.file !== file) continue;
        this.#index.delete(p);
        if (e.turn !== undefined) this.#turns.get(e.turn)?.delete(p);
      }
      this.#onProblem(problem);
      return undefined;
    }
  }

  /** Moves a bad file (or link: the link itself, never its target) into the quarantine folder. */
  #quarantine(file: string): string | undefined {
    const to = join(QUARANTINE_DIR, `${Date.now()}-${process.pid}-${file}`);
    try {
      mkdirSync(join(this.dir, QUARANTINE_DIR), { recursive: true });
      renameSync(join(this.dir, file), join(this.dir, to));
      return to;
    } catch {
      return undefined;
    }
  }

  /** Removes a temp file whose writer is gone (dead process on this host) or that is over an hour old. */
  #removeIfLeftover(name: string): void {
    const full = join(this.dir, name);
    try {
      const pid = Number(/^\.tmp-(\d+)-/.exec(name)?.[1]);
      const old = Date.now() - lstatSync(full).mtimeMs > STALE_TEMP_MS;
      if (old || !(Number.isInteger(pid) && pid > 0 && alive(pid))) rmSync(full, { force: true });
    } catch {
      // Gone already (its write finished) or not ours to remove: leave it.
    }
  }

  #read(file: string, path: string): FileRecord {
    let text: string;
    let fd: number | undefined;
    try {
      // O_NOFOLLOW: a symbolic link is refused (ELOOP), never followed to a file outside the folder.
      fd = openSync(join(this.dir, file), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      if (!fstatSync(fd).isFile()) throw new BadFileError(path, 'not_a_file', `${file} in ${this.dir} is not a regular file`);
      text = readFileSync(fd, 'utf8');
    } catch (cause) {
      if (cause instanceof BadFileError) throw cause;
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || (code === 'ENOENT' && isLink(join(this.dir, file)))) {
        throw new BadFileError(path, 'link', `${file} in ${this.dir} is a symbolic link; the store never follows links`);
      }
      if (code === 'EISDIR') throw new BadFileError(path, 'not_a_file', `${file} in ${this.dir} is not a regular file`);
      throw new PayloadStoreError(path, 'io', `cannot read ${file} in ${this.dir}: ${(cause as Error).message}`, { cause });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    let record: FileRecord;
    try {
      record = JSON.parse(text) as FileRecord;
    } catch (cause) {
      throw new PayloadStoreError(path, 'corrupt', `${file} in ${this.dir} is not valid JSON; delete it or restore it from a backup`, { cause });
    }
    if (
      record === null ||
      typeof record !== 'object' ||
      record.v !== 1 ||
      typeof record.path !== 'string' ||
      typeof record.payload !== 'object' ||
      record.payload === null
    ) {
      throw new PayloadStoreError(path, 'corrupt', `${file} in ${this.dir} is not a payload record (version 1)`);
    }
    // The name must be the one this path encodes to: a renamed or planted file is not trusted.
    if (fileNameOf(record.path) !== file) {
      throw new PayloadStoreError(
        path,
        'corrupt',
        `${file} in ${this.dir} holds the path ${JSON.stringify(record.path)}, which belongs in ${fileNameOf(record.path)}`,
      );
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

/** A file that is not a record by its nature (a link, a folder), as opposed to its content. */
class BadFileError extends PayloadStoreError {
  readonly kind: 'link' | 'not_a_file';
  constructor(path: string, kind: 'link' | 'not_a_file', message: string) {
    super(path, 'corrupt', message);
    this.kind = kind;
  }
}

function isLink(full: string): boolean {
  try {
    return lstatSync(full).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether a process with this id runs on this host (EPERM: it runs, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

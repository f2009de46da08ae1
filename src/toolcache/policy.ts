/**
 * Per-tool caching policy: declared once at registration, beside the tool's
 * schema, and validated there so a typo fails at startup rather than as a
 * stale answer in turn 40.
 *
 * Tags. A tag is `family:id` (an entity, e.g. `file:src/main.ts`, `user:42`) or
 * a family-level tag (`file:*`, or the bare family name `file`, which is the
 * same thing). The store matches tags exactly; the family logic lives here:
 *
 * | what                                   | stored / invalidated tags               |
 * |----------------------------------------|-----------------------------------------|
 * | read depends on entity `f:id`          | `f:id`, `family:f`                      |
 * | read depends on the whole family `f`   | `f:*`, `family:f`                       |
 * | write to entity `f:id`                 | evicts `f:id` and `f:*`                 |
 * | write to the whole family `f`          | evicts `family:f` (every reader of `f`) |
 *
 * So `Edit(file:a)` evicts `Read(a)` and `Glob(**)` (a whole-family reader) but
 * not `Read(b)`; `git checkout` declared as a family write of `file` evicts
 * every file-derived entry.
 */

import { InvalidOptionError } from '../errors.js';
import { fileReadAliases, fileWriteAliases, resolveAgainst } from './path-tags.js';
import { EVERYTHING_TAG } from './store.js';

// TYPES

/** How long an entry may be replayed: in turns of the caller's turn clock, or in wall-clock seconds. */
export type ToolTtl = { readonly turns: number } | { readonly seconds: number };

/**
 * Says which entities one call touches, e.g. `args => ['file:' + args.path]`.
 * Paths should be normalized (see {@link fileTag}) so that two spellings of one
 * path produce one tag: a tag that does not match is an under-eviction.
 */
export type TagExtractor<TArgs = never> = (args: TArgs) => readonly string[];

/**
 * The caching policy of one tool.
 *
 * @example
 * ```ts
 * cache.register('Read', {
 *   cacheable: true,
 *   ttl: { turns: 5 },
 *   reads: ['file'],
 *   tags: (args: { path: string }) => [fileTag(args.path)],
 * });
 * cache.register('Edit', { writes: ['file'], tags: (args: { path: string }) => [fileTag(args.path)] });
 * ```
 */
export interface ToolPolicy<TArgs = never> {
  /** Cache this tool's successful results. Off unless declared; a tool with `writes` can never be cacheable. */
  readonly cacheable?: boolean;
  /** Required when `cacheable`. `{ turns: 0 }` or `{ seconds: 0 }` caches nothing. */
  readonly ttl?: ToolTtl;
  /**
   * Families (`file`) or tags (`file:*`, `config:main`) this tool reads. With a
   * `tags` extractor, these are the families the extractor may name (checked per
   * call); without one, they are the dependency of every call.
   */
  readonly reads?: readonly string[];
  /**
   * Families or tags this tool writes. Declaring `writes` makes the tool a write
   * tool: never cached, and on success it evicts what it touched. With a `tags`
   * extractor, a bare family here only bounds what the extractor may name; without
   * one, a family here is a family-level write.
   */
  readonly writes?: readonly string[];
  /** Per call: the paths/entities (`file:src/main.ts`, `user:42`) the call touches. */
  readonly tags?: TagExtractor<TArgs>;
}

/** A policy after validation, with its tag sets pre-parsed. */
export interface ResolvedPolicy {
  readonly tool: string;
  readonly kind: 'read' | 'write' | 'passthrough';
  /** TTL in turns, or undefined for a second-based TTL. */
  readonly ttlTurns?: number;
  readonly ttlMs?: number;
  /** Families the tool declared (reads for read tools, writes for write tools). */
  readonly families: ReadonlySet<string>;
  /** Static dependency used when there is no extractor. */
  readonly staticTags: readonly ParsedTag[];
  readonly extractor?: (args: unknown) => readonly string[];
}

/** A tag split into its family and entity id; `id === undefined` means the whole family. */
export interface ParsedTag {
  readonly family: string;
  readonly id?: string;
}

// IMPLEMENTATION

const FAMILY_RE = /^[A-Za-z0-9_.-]+$/;

/**
 * Parses `file:src/a.ts` → `{family:'file', id:'src/a.ts'}`, `file:*` or `file` → `{family:'file'}`.
 * Throws InvalidOptionError naming `where` for malformed tags.
 */
export function parseTag(tag: string, where: string): ParsedTag {
  if (typeof tag !== 'string' || tag.length === 0) {
    throw new InvalidOptionError(where, `a tag must be a non-empty string like "file:src/main.ts" or "file:*", got ${JSON.stringify(tag)}`);
  }
  const colon = tag.indexOf(':');
  const family = colon === -1 ? tag : tag.slice(0, colon);
  if (!FAMILY_RE.test(family) || family === 'family') {
    throw new InvalidOptionError(where, `"${tag}" has family "${family}"; a family is letters, digits, "_", "-" or "." and is not the reserved word "family"`);
  }
  if (colon === -1) return { family };
  const id = tag.slice(colon + 1);
  if (id === '*') return { family };
  if (id.length === 0) throw new InvalidOptionError(where, `"${tag}" has an empty entity id; use "${family}:*" for the whole family`);
  return { family, id };
}

/**
 * The canonical tag of a file path: `file:` + the path with `\` → `/`, `./`
 * and duplicate slashes removed and `..` resolved (leading `..` kept), so that
 * `./src//a.ts` and `src/a.ts` are one tag.
 */
export function fileTag(path: string): string {
  if (isNormalPath(path)) return `file:${path}`;
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (!(part === '..' && absolute)) out.push(part);
  }
  const joined = out.join('/');
  return `file:${absolute ? '/' : ''}${joined === '' && !absolute ? '.' : joined}`;
}

/**
 * Whether {@link fileTag} leaves a path as it is: not empty, no backslash, and no empty, `.` or `..` segment
 * (a leading slash aside). Most paths agents send are; they skip the split and join.
 */
function isNormalPath(path: string): boolean {
  const n = path.length;
  let start = path.charCodeAt(0) === 47 ? 1 : 0;
  if (n === start) return false;
  for (let i = start; i <= n; i++) {
    const c = i < n ? path.charCodeAt(i) : 47;
    if (c === 92) return false;
    if (c !== 47) continue;
    const length = i - start;
    if (length === 0 || (length <= 2 && path.charCodeAt(start) === 46 && (length === 1 || path.charCodeAt(start + 1) === 46))) return false;
    start = i + 1;
  }
  return true;
}

/** The spelling-independent tags of a file entity (path-tags.ts): a write to any spelling of a file meets every read of it. */
function fileAliases(d: ParsedTag, of: (normalized: string) => string[]): readonly string[] {
  return d.family === 'file' && d.id !== undefined ? of(fileTag(d.id).slice('file:'.length)) : [];
}

export { EVERYTHING_TAG };

/**
 * The tag lists of single-dependency calls (most are: one path), by dependency: agents read and write the same few
 * paths again and again, and a path's spellings cost microseconds to derive (13 tags for a read of a 5-segment
 * absolute path, 25 for a write). Pure functions of the dependency, so a memo changes no answer. Bounded; emptied
 * when full.
 */
const MEMO_MAX = 1024;
const readMemo = new Map<string, readonly string[]>();
const writeMemo = new Map<string, readonly string[]>();

function memoized(memo: Map<string, readonly string[]>, deps: readonly ParsedTag[], compute: (deps: readonly ParsedTag[]) => string[]): readonly string[] {
  if (deps.length !== 1) return compute(deps);
  const d = deps[0] as ParsedTag;
  // A family holds no `:` (FAMILY_RE), so family + `:` + id (or `*`) names one dependency.
  const key = d.id === undefined ? `${d.family}:*` : `${d.family}:${d.id}`;
  let tags = memo.get(key);
  if (tags === undefined) {
    tags = Object.freeze(compute(deps));
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(key, tags);
  }
  return tags;
}

/** Tags a read entry carries in the store. */
export function readEntryTags(deps: readonly ParsedTag[]): readonly string[] {
  return memoized(readMemo, deps, computeReadTags);
}

function computeReadTags(deps: readonly ParsedTag[]): string[] {
  const tags = new Set<string>([EVERYTHING_TAG]);
  for (const d of deps) {
    tags.add(d.id === undefined ? `${d.family}:*` : `${d.family}:${d.id}`);
    tags.add(`family:${d.family}`);
    for (const t of fileAliases(d, fileReadAliases)) tags.add(t);
  }
  return [...tags].sort();
}

/** Tags a write invalidates. */
export function writeInvalidationTags(deps: readonly ParsedTag[]): readonly string[] {
  return memoized(writeMemo, deps, computeWriteTags);
}

function computeWriteTags(deps: readonly ParsedTag[]): string[] {
  const tags = new Set<string>();
  for (const d of deps) {
    if (d.id === undefined) tags.add(`family:${d.family}`);
    else {
      tags.add(`${d.family}:${d.id}`);
      tags.add(`${d.family}:*`);
      for (const t of fileAliases(d, fileWriteAliases)) tags.add(t);
    }
  }
  return [...tags].sort();
}

function checkTtl(tool: string, ttl: unknown): { ttlTurns?: number; ttlMs?: number } {
  const where = `tools.${tool}.ttl`;
  if (typeof ttl !== 'object' || ttl === null) {
    throw new InvalidOptionError(where, 'a cacheable tool needs a TTL: { turns: n } or { seconds: n }');
  }
  const t = ttl as { turns?: unknown; seconds?: unknown };
  if ('turns' in t === 'seconds' in t) {
    throw new InvalidOptionError(where, 'give exactly one of { turns } or { seconds }');
  }
  if ('turns' in t) {
    if (typeof t.turns !== 'number' || !Number.isSafeInteger(t.turns) || t.turns < 0) {
      throw new InvalidOptionError(`${where}.turns`, `must be a non-negative integer, got ${String(t.turns)}`);
    }
    return { ttlTurns: t.turns };
  }
  if (typeof t.seconds !== 'number' || !Number.isFinite(t.seconds) || t.seconds < 0) {
    throw new InvalidOptionError(`${where}.seconds`, `must be a finite number ≥ 0, got ${String(t.seconds)}`);
  }
  return { ttlMs: t.seconds * 1000 };
}

function checkList(tool: string, option: 'reads' | 'writes', list: unknown): ParsedTag[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new InvalidOptionError(`tools.${tool}.${option}`, 'must be an array of families or tags');
  return list.map((t, i) => parseTag(t as string, `tools.${tool}.${option}[${i}]`));
}

/** Validates a policy; throws InvalidOptionError naming the tool and the option. */
export function resolvePolicy(tool: string, policy: ToolPolicy<never>): ResolvedPolicy {
  if (typeof tool !== 'string' || tool.length === 0) throw new InvalidOptionError('tool', 'a tool name must be a non-empty string');
  if (typeof policy !== 'object' || policy === null) throw new InvalidOptionError(`tools.${tool}`, 'the policy must be an object');
  const known = new Set(['cacheable', 'ttl', 'reads', 'writes', 'tags']);
  for (const k of Object.keys(policy)) {
    if (!known.has(k)) throw new InvalidOptionError(`tools.${tool}.${k}`, `unknown option; known: ${[...known].join(', ')}`);
  }
  if (policy.cacheable !== undefined && typeof policy.cacheable !== 'boolean') {
    throw new InvalidOptionError(`tools.${tool}.cacheable`, 'must be a boolean');
  }
  if (policy.tags !== undefined && typeof policy.tags !== 'function') {
    throw new InvalidOptionError(`tools.${tool}.tags`, 'must be a function (args) => string[]');
  }
  const reads = checkList(tool, 'reads', policy.reads);
  const writes = checkList(tool, 'writes', policy.writes);
  const extractor = policy.tags as ((args: unknown) => readonly string[]) | undefined;
  const base = extractor === undefined ? {} : { extractor };

  if (policy.writes !== undefined) {
    if (policy.cacheable === true) {
      throw new InvalidOptionError(`tools.${tool}.cacheable`, 'a tool that declares `writes` is a write tool and is never cached');
    }
    if (writes.length === 0 && extractor === undefined) {
      throw new InvalidOptionError(`tools.${tool}.writes`, 'a write tool must name what it writes (families, tags, or a tags extractor)');
    }
    return { tool, kind: 'write', families: new Set(writes.map((w) => w.family)), staticTags: writes, ...base };
  }
  if (policy.cacheable === true) {
    const ttl = checkTtl(tool, policy.ttl);
    return { tool, kind: 'read', ...ttl, families: new Set(reads.map((r) => r.family)), staticTags: reads, ...base };
  }
  if (policy.ttl !== undefined) {
    throw new InvalidOptionError(`tools.${tool}.ttl`, 'a TTL without `cacheable: true` does nothing; add `cacheable: true` or remove it');
  }
  return { tool, kind: 'passthrough', families: new Set(reads.map((r) => r.family)), staticTags: reads, ...base };
}

/**
 * `deps` with every relative `file:` path resolved against `cwd` (absolute, as `fileTag` writes it without
 * `file:`), so a write and a read of one file meet by their absolute spelling only (see ToolCacheOptions.cwd).
 */
export function resolveFileDependencies(deps: ParsedTag[], cwd: string): ParsedTag[] {
  for (let i = 0; i < deps.length; i++) {
    const d = deps[i] as ParsedTag;
    if (d.family !== 'file' || d.id === undefined) continue;
    const resolved = resolveAgainst(cwd, fileTag(d.id).slice('file:'.length));
    if (resolved !== undefined) deps[i] = { family: 'file', id: fileTag(resolved).slice('file:'.length) };
  }
  return deps;
}

/**
 * The dependency of one call: extractor tags (checked against the declared
 * families, when any were declared) or the static declaration.
 */
export function callDependencies(policy: ResolvedPolicy, args: unknown): ParsedTag[] {
  if (policy.extractor === undefined) return [...policy.staticTags];
  const option = policy.kind === 'write' ? 'writes' : 'reads';
  const raw = policy.extractor(args);
  if (!Array.isArray(raw)) throw new InvalidOptionError(`tools.${policy.tool}.tags`, 'the extractor must return an array of tags');
  const deps = raw.map((t, i) => parseTag(t as string, `tools.${policy.tool}.tags(args)[${i}]`));
  for (const d of deps) {
    if (policy.families.size > 0 && !policy.families.has(d.family)) {
      throw new InvalidOptionError(
        `tools.${policy.tool}.tags`,
        `the extractor named family "${d.family}" but the tool declares ${option}: [${[...policy.families].join(', ')}]; add it to ${option}`,
      );
    }
  }
  // Entity-level entries of the static list still apply (e.g. reads: ['config:main'] plus per-call files).
  for (const s of policy.staticTags) if (s.id !== undefined) deps.push(s);
  return deps;
}

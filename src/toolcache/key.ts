/**
 * Canonical cache keys: tool name + scope + sha256 of the arguments in
 * canonical JSON. Two spellings of one call (key order, whitespace) hash alike;
 * values with no single JSON spelling are rejected, never guessed.
 *
 * The answers (each one tested):
 * - object keys are sorted by UTF-16 code units at every depth; no whitespace;
 * - a property whose value is `undefined` is omitted (`{a: undefined}` ≡ `{}`),
 *   as in every JSON transport; `undefined` anywhere else (top level, array
 *   element, array hole) is rejected;
 * - `-0` is written `0` (JSON has one zero); `NaN`, `Infinity` are rejected;
 * - numbers use the ECMAScript shortest round-trip form (as `JSON.stringify`);
 * - a `bigint` is written as its exact decimal digits, so `42n` ≡ `42`;
 * - a valid `Date` is written as its ISO-8601 string (`toISOString()`), so it
 *   equals that string; an invalid Date is rejected;
 * - any other non-plain object (Map, Set, RegExp, class instance, typed array,
 *   boxed primitive), functions, symbols, symbol-keyed properties and cycles
 *   are rejected;
 * - strings are compared as given (no Unicode normalization);
 * - a shared (acyclic) reference is written in full at each use, as JSON does,
 *   but its text is computed once: hashing is linear in the distinct objects,
 *   never exponential in how often they are shared;
 * - arguments nested deeper than {@link MAX_KEY_DEPTH} levels, or whose
 *   canonical text would exceed {@link MAX_KEY_TEXT} characters, are rejected
 *   (a key is a hash of that text; such a call is not worth caching).
 *
 * Two key forms (both `tool:scope:` + an argument part; tool and scope percent-encoded):
 * - hashed, `…:<64 hex>`, the sha256 of the canonical text: what {@link toolCacheKey} returns and
 *   every shared or external store (Redis, a custom store) receives: bounded length, no argument
 *   values in the store's key space;
 * - raw, `…:=<canonical text>`, for the in-process memory store when the canonical text has at most
 *   {@link MAX_RAW_KEY_TEXT} characters ({@link memoryKeyPart}): the text is already a unique name of
 *   the call, so hashing it buys nothing but time (sha256 in plain JS is most of a small hit's cost).
 *   `=` never starts a hex digest, so a raw key never equals a hashed one; two raw keys are equal
 *   exactly when the canonical texts are.
 */

import { sha256Hex } from '../internal/hash.js';
import { CachepointError } from '../errors.js';

/** A value that cannot be written as canonical JSON. `path` is a JSON path like `$.files[2].mtime`. */
export class CanonicalKeyError extends CachepointError {
  readonly path: string;
  readonly tool: string | undefined;
  constructor(path: string, message: string, tool?: string) {
    super('canonical_key', `${tool === undefined ? '' : `${tool} arguments: `}${path}: ${message}`);
    this.path = path;
    this.tool = tool;
  }
}

/** The deepest nesting of arrays and objects a key is made of (deeper throws {@link CanonicalKeyError}, not a stack overflow). */
export const MAX_KEY_DEPTH = 1000;

/** The longest canonical text a key is hashed from: 32 Mi characters. */
export const MAX_KEY_TEXT = 32 * 1024 * 1024;

const IDENT_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The JSON path of the value being written, kept as parts and only formatted on error (the hot path never builds it). */
type PathParts = Array<string | number>;

function formatPath(parts: PathParts): string {
  const one = (p: string | number) => (typeof p === 'number' ? `[${p}]` : IDENT_RE.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`);
  // A path hundreds of levels deep is named by its two ends.
  if (parts.length > 24) return `$${parts.slice(0, 8).map(one).join('')}…(${parts.length - 16} levels)…${parts.slice(-8).map(one).join('')}`;
  return `$${parts.map(one).join('')}`;
}

function fail(parts: PathParts, message: string): never {
  throw new CanonicalKeyError(formatPath(parts), message);
}

function describe(v: object): string {
  const ctor = Object.getPrototypeOf(v)?.constructor;
  return typeof ctor === 'function' && ctor.name ? ctor.name : 'object with a custom prototype';
}

/** One canonicalJson run: the objects on the current path (cycles) and the text of every object already written (shared references). */
interface WriteState {
  readonly stack: Set<object>;
  readonly done: Map<object, string>;
}

function checkLength(text: string, path: PathParts): string {
  if (text.length > MAX_KEY_TEXT) {
    fail(
      path,
      `the arguments' canonical JSON exceeds ${MAX_KEY_TEXT.toLocaleString('en-US')} characters (shared references count at every use); such a call cannot be keyed: declare the tool not cacheable or pass smaller arguments`,
    );
  }
  return text;
}

function write(value: unknown, path: PathParts, state: WriteState): string {
  if (typeof value !== 'object' || value === null) return writeScalar(value, path);
  const obj = value as object;
  const known = state.done.get(obj);
  if (known !== undefined) return known;
  if (path.length >= MAX_KEY_DEPTH)
    fail(path, `nested more than ${MAX_KEY_DEPTH} levels deep; such a call cannot be keyed: declare the tool not cacheable or flatten its arguments`);
  const text = checkLength(writeObject(obj, path, state), path);
  state.done.set(obj, text);
  return text;
}

function writeScalar(value: unknown, path: PathParts): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) fail(path, `${String(value)} has no JSON form; pass null or a string instead`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'bigint':
      return value.toString(10);
    case 'undefined':
      return fail(path, 'undefined has no JSON form here (only an undefined object property is allowed, and it is omitted)');
    case 'function':
    case 'symbol':
      return fail(path, `a ${typeof value} has no JSON form`);
  }
  return 'null';
}

function writeObject(obj: object, path: PathParts, state: WriteState): string {
  const { stack } = state;
  if (stack.has(obj)) fail(path, 'circular reference');
  if (Array.isArray(obj)) {
    stack.add(obj);
    let out = '[';
    for (let i = 0; i < obj.length; i++) {
      path.push(i);
      if (!(i in obj)) fail(path, 'array hole (sparse array) has no JSON form');
      out = checkLength(out + (i > 0 ? ',' : '') + write(obj[i], path, state), path);
      path.pop();
    }
    stack.delete(obj);
    return `${out}]`;
  }
  if (obj instanceof Date) {
    if (Number.isNaN(obj.getTime())) fail(path, 'invalid Date');
    return JSON.stringify(obj.toISOString());
  }
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    fail(path, `${describe(obj)} is not a plain object; convert it to plain JSON (objects, arrays, strings, numbers, booleans, null) first`);
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) fail(path, 'symbol-keyed properties have no JSON form');
  stack.add(obj);
  // Default sort compares UTF-16 code units, which is the order canonical JSON (RFC 8785) uses.
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = (obj as Record<string, unknown>)[k];
    if (v === undefined) continue;
    path.push(k);
    out = checkLength(`${out}${first ? '' : ','}${JSON.stringify(k)}:${write(v, path, state)}`, path);
    path.pop();
    first = false;
  }
  stack.delete(obj);
  return `${out}}`;
}

/** `JSON.stringify(key)` for property names, remembered (an agent's tools use a few dozen names). */
const QUOTED = new Map<string, string>();

function quotedKey(k: string): string {
  let q = QUOTED.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (QUOTED.size < 4096 && k.length <= 64) QUOTED.set(k, q);
  }
  return q;
}

/** A value the flat paths write as JSON.stringify does: a string, a finite number, a boolean, null or undefined. */
function isPlainScalar(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      return v === null;
    default:
      return false;
  }
}

/**
 * `JSON.stringify(obj)` when `obj` is a flat plain object of strings, finite numbers, booleans,
 * nulls and undefined (the shape {@link flatJson} keys), else undefined. Not canonical (keys in
 * their own order), but for such an object the text fixes every key and value: two objects with
 * the same text have the same canonical text. The tool cache's hit path remembers the key of a
 * text it has seen, so a repeat costs one native stringify and one lookup. No allocation besides
 * the text and the (empty) symbol list.
 */
export function flatText(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null || Object.getPrototypeOf(obj) !== Object.prototype) return undefined;
  let n = 0;
  for (const k in obj) {
    if (++n > 32) return undefined;
    const v = (obj as Record<string, unknown>)[k];
    if (!isPlainScalar(v)) return undefined;
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) return undefined;
  return JSON.stringify(obj);
}

/**
 * The fast path for the common call, a flat plain object of strings, finite numbers, booleans and
 * nulls (`{ path: 'a.ts', limit: 10 }`): the same text {@link writeObject} writes, without its
 * cycle and sharing bookkeeping. Returns undefined for anything else (then the general writer runs
 * and gives the answer, or the error, for it).
 */
function flatJson(obj: object): string | undefined {
  if (Object.getPrototypeOf(obj) !== Object.prototype) return undefined;
  const keys = Object.keys(obj);
  if (keys.length > 32) return undefined;
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0 && !(keys[i - 1]! < k)) sorted = false;
    const v = (obj as Record<string, unknown>)[k];
    if (!isPlainScalar(v)) return undefined;
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) return undefined;
  let out: string;
  if (sorted) {
    // Keys already in code-unit order, values all plain scalars: JSON.stringify writes exactly the
    // canonical text (it omits undefined properties and writes -0 as 0, as the rules do).
    out = JSON.stringify(obj);
  } else {
    // Insertion sort: for a handful of keys it is several times cheaper than Array#sort's setup.
    for (let i = 1; i < keys.length; i++) {
      const k = keys[i]!;
      let j = i - 1;
      while (j >= 0 && keys[j]! > k) {
        keys[j + 1] = keys[j]!;
        j--;
      }
      keys[j + 1] = k;
    }
    out = '{';
    for (const k of keys) {
      const v = (obj as Record<string, unknown>)[k];
      if (v === undefined) continue;
      out += `${out.length === 1 ? '' : ','}${quotedKey(k)}:${JSON.stringify(v)}`;
    }
    out += '}';
  }
  return out.length > MAX_KEY_TEXT ? undefined : out;
}

/**
 * The canonical JSON text of `value` (rules in this module's header).
 * Throws {@link CanonicalKeyError} naming the JSON path of the first value that has no canonical form.
 *
 * @example
 * ```ts
 * canonicalJson({ b: [1, -0], a: { y: 1, x: undefined } }); // '{"a":{"y":1},"b":[1,0]}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const flat = flatJson(value);
    if (flat !== undefined) return flat;
  }
  try {
    return write(value, [], { stack: new Set(), done: new Map() });
  } catch (e) {
    // The depth limit stops our own recursion; a smaller native stack (a deep toJSON-free value in a
    // worker with little stack) still surfaces as the key error it is.
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new CanonicalKeyError('$', `nested too deeply to key (${e.message}); declare the tool not cacheable or flatten its arguments`);
    }
    throw e;
  }
}

/** The canonical text of a tool's arguments; a {@link CanonicalKeyError} names the tool. */
function canonicalArgs(args: unknown, tool: string | undefined): string {
  try {
    return canonicalJson(args);
  } catch (e) {
    if (e instanceof CanonicalKeyError && tool !== undefined) throw new CanonicalKeyError(e.path, e.message.slice(e.path.length + 2), tool);
    throw e;
  }
}

/** Digests of recent short canonical texts: a hit is a repeat by definition, so its key's hash was computed before. */
const DIGESTS = new Map<string, string>();

function digest(text: string): string {
  if (text.length > 1024) return sha256Hex(text);
  let d = DIGESTS.get(text);
  if (d === undefined) {
    d = sha256Hex(text);
    if (DIGESTS.size >= 4096) DIGESTS.clear();
    DIGESTS.set(text, d);
  }
  return d;
}

/** sha256 (hex) of the canonical JSON of `args`. */
export function hashArgs(args: unknown, tool?: string): string {
  return digest(canonicalArgs(args, tool));
}

/** The longest canonical text the memory store's keys hold as themselves (longer texts are hashed). */
export const MAX_RAW_KEY_TEXT = 256;

/**
 * The argument part of an in-process key: `=` + the canonical text when it has at most
 * {@link MAX_RAW_KEY_TEXT} characters, else the sha256 hex of it (see the module header).
 */
export function memoryKeyPart(args: unknown, tool?: string): string {
  const text = canonicalArgs(args, tool);
  return text.length <= MAX_RAW_KEY_TEXT ? `=${text}` : digest(text);
}

/**
 * The store key of one call: `tool:scope:hash`, with tool and scope percent-encoded so
 * that no choice of names can make two (tool, scope) pairs collide.
 *
 * @example
 * ```ts
 * toolCacheKey('Read', { path: 'a.ts' }, 'tenant-1'); // 'Read:tenant-1:9f86…'
 * ```
 */
export function toolCacheKey(tool: string, args: unknown, scope: string): string {
  return `${encodeURIComponent(tool)}:${encodeURIComponent(scope)}:${hashArgs(args, tool)}`;
}

/** The tool name encoded in a key made by {@link toolCacheKey} (for stats). */
export function toolOfKey(key: string): string {
  const i = key.indexOf(':');
  try {
    return decodeURIComponent(i === -1 ? key : key.slice(0, i));
  } catch {
    return key;
  }
}

/**
 * The extra tags that let a write to one spelling of a file evict the reads of every other spelling of it.
 *
 * `fileTag` fixes dots and slashes, but one file still has spellings it cannot join: relative or absolute (the
 * cache does not know the agent's working directory), `../` from elsewhere, case and Unicode normalization (one
 * name on APFS and NTFS), a drive letter. Under-evicting is a stale answer and over-evicting is safe, so every
 * pair of spellings that *may* name one file must share a tag:
 *
 * - the folded path (NFC, then case-folded; a drive letter dropped) is tagged `file:<path>`: for a path already
 *   spelled that way (most are) it is the tag `fileTag` gave, so nothing is added;
 * - a relative path `s/a.ts` may be any absolute path it ends: a read of `/r/s/a.ts` carries `file~in:<suffix>`
 *   for each suffix (`r/s/a.ts`, `s/a.ts`, `a.ts`), and a write to a relative path evicts `file~in:<path>`;
 *   a write to `/r/s/a.ts` evicts `file:<suffix>` for each suffix, the tags relative reads carry;
 * - a path that starts with `..` is both (it is relative, and it names an absolute path ending in its rest).
 *
 * So two absolute (or two relative) paths meet only when they are equal, and an absolute path meets a relative
 * one when the relative one ends it. The `~` keeps `file~in:` out of the tags a policy can name (a family is
 * letters, digits, `_`, `-`, `.`). The cost: a read of an absolute path stores one tag per segment.
 *
 * Directories. A name does not say whether it is a directory, and a write to one (`rm -r src`, a folder moved)
 * changes every file under it, while a write to a file changes the listing of every directory above it (a
 * `list_directory` read tagged by its path). So a read of `/r/s/a.ts` also carries `file~dir:/r` and
 * `file~dir:/r/s`, and a write to a path evicts `file~dir:<path>` (the reads under it) and the `file:` tags of
 * the directories above it, in every spelling its kind meets (`file:/r`, `file:/r/s`, and for an absolute
 * write the relative `file:r/s`, `file:s`, …; for a relative write the absolute readers' `file~in:`).
 *
 * Across the two kinds, directories bring in the working directory, which may be any absolute directory: at or
 * under a directory an absolute write names (`rm -r /r/s` changes every relative read), or the one an absolute
 * read lists (`write_file('new.ts')` changes `list_directory('/r')`). So an absolute write evicts `file~dir:`,
 * which every relative read carries (the `.` above it), and a relative write evicts `file~dir:/` and `file:/`,
 * which every absolute read carries: a write of one kind evicts every read of the other. Two absolute (or two
 * relative) paths still meet only as above; a path that starts with `..` is both, so its read carries both tags.
 */

/**
 * A relative path (as `fileTag` writes it, without `file:`) resolved against `cwd`, an absolute directory as
 * `fileTag` writes it; `undefined` when the path is not relative (absolute, a drive letter, a `file:` URI).
 * The caller normalizes the result (`..` folded) with `fileTag`.
 */
export function resolveAgainst(cwd: string, normalized: string): string | undefined {
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || /^file:\//i.test(normalized)) return undefined;
  return normalized === '.' ? cwd : `${cwd}/${normalized}`;
}

/** Whether `path` is absolute: `/…`, a drive letter (`C:\…`, `C:/…`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path);
}

/** What a path may be equal to: its folded segments without root, drive or leading `..`, and which kind of path it is. */
interface PathForm {
  readonly exact: string;
  /** What `exact` starts with before its segments: `/`, `../` repeated, or nothing. */
  readonly root: string;
  readonly core: readonly string[];
  readonly absolute: boolean;
  readonly up: boolean;
}

/** Printable ASCII (any other name takes the general fold). */
const ASCII = /^[ -~]*$/;

/** One spelling for names a case- and normalization-insensitive file system treats as one (upper then lower: `ſ`, `K` fold too). */
function fold(s: string): string {
  // ASCII folds by lower case alone (NFC leaves it as it is, and no ASCII letter's upper case lowers elsewhere).
  if (ASCII.test(s)) return s.toLowerCase();
  return s.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/** A `file:///…` URI as `fileTag` leaves it (`file:/…`): the absolute path it names, percent-decoded. */
function uriPath(normalized: string): string | undefined {
  if (!/^file:\/./i.test(normalized)) return undefined;
  const path = normalized.slice('file:'.length);
  try {
    return decodeURIComponent(path).replace(/^\/([A-Za-z]:)(?=\/|$)/, '$1');
  } catch {
    return path; // a `%` that is not an escape: the path as written
  }
}

/** `normalized`: a path as `fileTag` writes it, without `file:`. */
function formOf(normalized: string): PathForm {
  let path = fold(uriPath(normalized) ?? normalized);
  let absolute = path.startsWith('/');
  const drive = /^[a-z]:(\/|$)/.exec(path);
  if (drive !== null) {
    // `C:/repo/a.ts` and `/repo/a.ts` may be one file (the current drive): both are the absolute `/repo/a.ts`.
    path = `/${path.slice(drive[0].length)}`;
    absolute = true;
  }
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  let ups = 0;
  while (!absolute && segments[ups] === '..') ups++;
  const core = segments.slice(ups);
  const root = absolute ? '/' : '../'.repeat(ups);
  return { exact: root + core.join('/'), root, core, absolute, up: ups > 0 };
}

/** The suffixes of a path's segments, longest first: `r/s/a.ts`, `s/a.ts`, `a.ts`. */
function suffixes(core: readonly string[], end = core.length): string[] {
  // Built from the right, each from the next: one concatenation per suffix, not a slice and a join.
  const out = new Array<string>(end);
  let s = '';
  for (let i = end - 1; i >= 0; i--) out[i] = s = i === end - 1 ? (core[i] as string) : `${core[i]}/${s}`;
  return out;
}

/** The exact spellings of the directories above a path, outermost first: `/`, `/r`, `/r/s` for `/r/s/a.ts`. */
function ancestors(f: PathForm): string[] {
  const out = new Array<string>(f.core.length);
  let s = '';
  for (let n = 0; n < f.core.length; n++) {
    out[n] = f.root + s;
    s = n === 0 ? (f.core[0] as string) : `${s}/${f.core[n]}`;
  }
  return out;
}

/** The exact spelling of the directory made of a path's first `n` segments (its root or leading `..` kept). */
function ancestor(f: PathForm, n: number): string {
  return f.root + f.core.slice(0, n).join('/');
}

/** A glob's metacharacters: a segment holding one may stand for many names (a `[id]` file name is over-evicted, safely). */
const GLOB = /[*?[{]/;

/** The directory a glob pattern spelled as a path looks under (`src/**\/*.ts` → `src`); the path itself when it is no glob. */
function globBase(f: PathForm): PathForm {
  const first = f.core.findIndex((s) => GLOB.test(s));
  if (first === -1) return f;
  return { ...f, exact: ancestor(f, first), core: f.core.slice(0, first) };
}

/**
 * The extra tags a read of a file carries (see the module comment); `normalized` as `fileTag` writes it, without
 * `file:`. A glob pattern reads its base directory too (what a write under it evicts).
 */
export function fileReadAliases(normalized: string): string[] {
  const f = formOf(normalized);
  const base = globBase(f);
  return base === f ? readAliases(f) : [...readAliases(f), ...readAliases(base)];
}

/** The extra tags a write to a file evicts (see the module comment); a glob pattern writes its base directory too. */
export function fileWriteAliases(normalized: string): string[] {
  const f = formOf(normalized);
  const base = globBase(f);
  return base === f ? writeAliases(f) : [...writeAliases(f), ...writeAliases(base)];
}

function readAliases(f: PathForm): string[] {
  const tags = [`file:${f.exact}`];
  if (f.absolute || f.up) for (const s of suffixes(f.core)) tags.push(`file~in:${s}`);
  if (f.up) tags.push(`file:${f.core.join('/')}`);
  for (const a of ancestors(f)) tags.push(`file~dir:${a}`);
  // `../x` is under the working directory's parent: inside any directory a write of either kind may name.
  if (f.up) tags.push('file~dir:', 'file~dir:/');
  return tags;
}

function writeAliases(f: PathForm): string[] {
  const tags = [`file:${f.exact}`, `file~dir:${f.exact}`];
  // The working directory may be anywhere above an absolute path: a relative read of `.` (or a glob from it) lists it.
  if (f.absolute) tags.push('file:');
  // The working directory may be at or under an absolute path (every relative read is under it), and any
  // absolute directory may be the working directory a relative path writes into (its absolute listing changes).
  if (f.absolute || f.up) tags.push('file~dir:');
  if (!f.absolute) tags.push('file~dir:/', 'file:/');
  if (f.absolute || f.up) for (const s of suffixes(f.core)) tags.push(`file:${s}`);
  if (!f.absolute) tags.push(`file~in:${f.core.join('/')}`);
  // The listings of the directories above it, as each kind of reader spells them.
  const above = ancestors(f);
  for (let n = 0; n < f.core.length; n++) {
    tags.push(`file:${above[n]}`);
    if (f.absolute || f.up) for (const s of suffixes(f.core, n)) tags.push(`file:${s}`);
    if (!f.absolute && n > 0) tags.push(`file~in:${(above[n] as string).slice(f.root.length)}`);
  }
  return tags;
}

/**
 * What a tool call works on: its exact key (tool + canonical arguments), the
 * files it names, and the tool policy's tags where a tool cache declares them.
 * Shared by the forced-recall estimate (src/replay/recalls.ts), which asks
 * "does this later call need a payload we removed?", and by the re-use-aware
 * prune gate (src/render/reuse.ts), which asks "will a later call need it?".
 *
 * No tool is known by name alone: a call is a write when its policy declares
 * `writes`, or, without a policy, when its name says so (Edit, Write,
 * MultiEdit, NotebookEdit, apply_patch, …; `TodoWrite` names no file, so it
 * touches nothing here). A file is an argument under a path-like key
 * (`file_path`, `path`, `notebook_path`, `filename`, …) whose last segment has
 * an extension: `src/a.ts` is a file, `src` (Grep's search root) is not.
 */
import { isSpace } from '../internal/chars.js';
import { canonicalJson } from './key.js';
import { fileTag, resolvePolicy, type ToolPolicy } from './policy.js';

/** What one call works on. */
export interface CallTargets {
  /** Tool name + canonical JSON of the arguments: two calls with the same key ask the same thing. */
  readonly key: string;
  readonly name: string;
  /** `read`: looks something up; `write`: changes the files it names. */
  readonly kind: 'read' | 'write';
  /** A write that replaces the whole file (its arguments hold the new content): it needs no earlier text. */
  readonly overwrite: boolean;
  /** Normalized file paths (see {@link fileTag}), without the `file:` prefix. */
  readonly files: readonly string[];
  /** The policy's tags for this call (`file:src/a.ts`, `user:42`), when a policy declares them. */
  readonly tags: readonly string[];
  /** Results that do not depend on the workspace (web pages, searches): never made stale by a local write. */
  readonly external: boolean;
  /**
   * A read of one file whose arguments name nothing else (`Read {file_path}`, no offset or limit): its result is
   * the file's whole text, which a later partial read of the unchanged file does not replace (render/reuse.ts).
   */
  readonly whole: boolean;
}

const PATH_KEYS = /^(file_?path|path|notebook_?path|file_?name|file|target_?file|filepath|uri)$/i;
const WRITE_NAME =
  /^(edit|multi_?edit|write|notebook_?edit|apply_?patch|create_?file|edit_?file|write_?file|str_replace_editor|replace_in_file|delete_?file|move_?file|rename_?file)$/i;
const EXTERNAL_NAME = /web|fetch|search|http|url|browse/i;

/**
 * Whether a path's last segment has an extension: what `/\/?[^/\s]+\.[A-Za-z0-9]{1,8}$/` tests, read from the
 * end (that unanchored regex retried every start: most of a tool call's targets' cost). The text ends with a
 * run of 1–8 letters or digits (a longer run leaves a letter or digit, not a dot, before any 8 of them), a dot
 * before it, and before the dot a character that is not a slash or whitespace.
 */
function hasExtension(v: string): boolean {
  const n = v.length;
  let run = 0;
  while (run < n && run <= 8 && isAlnum(v.charCodeAt(n - 1 - run))) run++;
  if (run < 1 || run > 8) return false;
  const dot = n - 1 - run;
  if (dot < 1 || v.charCodeAt(dot) !== 46) return false;
  const c = v.charCodeAt(dot - 1);
  return c !== 47 && !isSpace(c);
}

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

const memo = new WeakMap<object, CallTargets>();

/**
 * The targets of one tool call.
 *
 * @param policies tool policies by tool name (as registered with the tool cache), when known
 * @example
 * callTargets('Edit', { file_path: '/repo/src/a.ts', old_string: 'x', new_string: 'y' });
 * // { kind: 'write', files: ['/repo/src/a.ts'], overwrite: false, … }
 */
export function callTargets(name: string, input: unknown, policies?: Readonly<Record<string, ToolPolicy<never>>>): CallTargets {
  const cacheable = typeof input === 'object' && input !== null && !policies;
  if (cacheable) {
    const hit = memo.get(input);
    if (hit && hit.name === name) return hit;
  }
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const files: string[] = [];
  for (const k of Object.keys(args)) {
    const v = args[k];
    if (typeof v === 'string' && v.length < 1024 && PATH_KEYS.test(k) && hasExtension(v)) files.push(fileTag(v).slice('file:'.length));
  }
  let kind: CallTargets['kind'] = WRITE_NAME.test(name) ? 'write' : 'read';
  let tags: string[] = [];
  const policy = policies?.[name];
  if (policy) {
    const resolved = resolvePolicy(name, policy);
    if (resolved.kind === 'write') kind = 'write';
    else if (resolved.kind === 'read') kind = 'read';
    try {
      // Entity tags only: a family-wide tag (`file:*`) names no one payload.
      tags = (resolved.extractor ? resolved.extractor(args) : resolved.staticTags.filter((t) => t.id).map((t) => `${t.family}:${t.id}`)).filter(
        (t) => !t.endsWith(':*') && t.includes(':'),
      );
    } catch {
      tags = [];
    }
    for (const t of tags) if (t.startsWith('file:') && t !== 'file:*' && !files.includes(t.slice(5))) files.push(t.slice(5));
  }
  const overwrite = kind === 'write' && typeof args.content === 'string' && args.old_string === undefined && args.edits === undefined;
  const out: CallTargets = {
    key: `${name}\u0000${canonicalJson(args)}`,
    name,
    kind,
    overwrite,
    files,
    tags: tags.filter((t) => !t.startsWith('file:')),
    external: EXTERNAL_NAME.test(name),
    whole: kind === 'read' && files.length === 1 && Object.keys(args).every((k) => PATH_KEYS.test(k)),
  };
  if (cacheable) memo.set(input, out);
  return out;
}

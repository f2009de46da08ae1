/**
 * A preset: the policies of Claude Code's built-in tools, by their names and argument shapes (Read `file_path`,
 * Grep `path`, Glob `pattern` + `path`, NotebookEdit `notebook_path`…). Opt-in: `cache.registerAll(claudeCodeTools())`.
 *
 * Reads are tagged by what they read: a file (`Read`, `NotebookRead`), a directory (`LS`), a search's base
 * directory (`Grep`'s `path`, `Glob`'s pattern under its `path`; without one, the working directory `.`).
 * Writes are tagged by their file. `TodoWrite` touches no file: harmless. `Bash`, `Task` and every tool not
 * named here stay unregistered, so each call is a write to everything (the cache cannot know what a shell or
 * a subagent changed). An argument that is not a string path makes the call depend on (or write) the whole
 * `file` family: evicting too much is safe.
 */

import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import { fileTag, type ToolPolicy, type ToolTtl } from './policy.js';

/** Options of {@link claudeCodeTools}. */
export interface ClaudeCodeToolsOptions {
  /** How long a read is replayed. Default `{ turns: 5 }`. */
  readonly ttl?: ToolTtl;
}

const OPTION_KEYS = optionKeys<ClaudeCodeToolsOptions>({ ttl: true });

type Args = Readonly<Record<string, unknown>>;

/** The whole `file` family: a read of it is evicted by any file write; a write of it evicts every file read. */
const ANY_FILE = 'file';

/** The tag of a path argument, or the whole family when the argument is not a path. */
function pathTag(path: unknown): string {
  return typeof path === 'string' && path !== '' ? fileTag(path) : ANY_FILE;
}

/** `pattern` under `base` (absolute patterns stand alone): its glob segments make the tag read the base directory (path-tags.ts). */
function globTag(args: Args): string {
  const { pattern, path } = args;
  if (typeof pattern !== 'string' || pattern === '') return ANY_FILE;
  if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) return fileTag(pattern);
  if (path === undefined) return fileTag(pattern);
  return typeof path === 'string' && path !== '' ? fileTag(`${path}/${pattern}`) : ANY_FILE;
}

/** Grep and LS read a directory (or a file): their `path`, the working directory when absent. */
function dirTag(path: unknown): string {
  return path === undefined ? fileTag('.') : pathTag(path);
}

/**
 * The policies of Claude Code's file, search, web and todo tools, for {@link ToolCache.registerAll}.
 *
 * | tool | policy |
 * |---|---|
 * | `Read`, `NotebookRead` | cached; reads its file (`file_path`, `notebook_path`) |
 * | `LS`, `Grep` | cached; reads its `path` (the working directory when absent), every file under it |
 * | `Glob` | cached; reads the base directory of `pattern` (under `path`, else the working directory) |
 * | `WebFetch`, `WebSearch` | cached; read `web` (nothing here writes it) |
 * | `Edit`, `MultiEdit`, `Write`, `NotebookEdit` | writes of their file |
 * | `TodoWrite` | harmless: `{}` (runs every time, evicts nothing) |
 * | `Bash`, `Task`, anything else | not included: a write to everything |
 *
 * A shell that only reads (`git status`) still evicts everything: wrap it in a tool of your own if that costs
 * you hits. Give the cache the agent's working directory (`new ToolCache({ cwd })`) when tools get relative paths.
 *
 * @example
 * ```ts
 * const cache = new ToolCache({ cwd: process.cwd() }).registerAll(claudeCodeTools({ ttl: { turns: 5 } }));
 * const results = await cache.runToolUses(response.content, handlers, { scope: '' });
 * ```
 */
export function claudeCodeTools(options: ClaudeCodeToolsOptions = {}): Readonly<Record<string, ToolPolicy<Args>>> {
  refuseUnknownKeys(options, OPTION_KEYS, 'claudeCodeTools.');
  const ttl = options.ttl ?? { turns: 5 };
  const read = (tags: (a: Args) => string[]): ToolPolicy<Args> => ({ cacheable: true, ttl, reads: ['file'], tags });
  const write = (tags: (a: Args) => string[]): ToolPolicy<Args> => ({ writes: ['file'], tags });
  return Object.freeze({
    Read: read((a) => [pathTag(a.file_path)]),
    NotebookRead: read((a) => [pathTag(a.notebook_path)]),
    LS: read((a) => [dirTag(a.path)]),
    Grep: read((a) => [dirTag(a.path)]),
    Glob: read((a) => [globTag(a)]),
    WebFetch: { cacheable: true, ttl, reads: ['web'] },
    WebSearch: { cacheable: true, ttl, reads: ['web'] },
    Edit: write((a) => [pathTag(a.file_path)]),
    MultiEdit: write((a) => [pathTag(a.file_path)]),
    Write: write((a) => [pathTag(a.file_path)]),
    NotebookEdit: write((a) => [pathTag(a.notebook_path)]),
    TodoWrite: {},
  });
}

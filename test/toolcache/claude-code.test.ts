/**
 * The Claude Code preset (`claudeCodeTools()`): Claude Code's tool names and argument shapes, as the fixtures
 * spell them, run against real files in a temporary directory (the working directory) and a real `bash`. The truth
 * is what the disk holds: every read after a write must show it; the harmless and unrelated calls must keep hits.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { claudeCodeTools } from '../../src/toolcache/claude-code.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cachepoint-claude-code-'));
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'const a = 1;\n');
  writeFileSync(join(root, 'src', 'b.ts'), 'const b = 1;\n');
  writeFileSync(join(root, 'src', 'lib', 'x.ts'), 'const x = 1;\n');
  writeFileSync(join(root, 'notes.ipynb'), 'cell 1');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Args = Record<string, unknown>;

/** Claude Code's tools, implemented on the disk under `root` (relative paths resolve against it). */
function handlers() {
  const at = (p: unknown) => (isAbsolute(String(p)) ? String(p) : join(root, String(p)));
  const sh = (command: string) => execFileSync('bash', ['-c', command], { cwd: root, encoding: 'utf8' });
  const grep = (a: Args) => sh(`grep -rn -- ${JSON.stringify(String(a.pattern))} ${JSON.stringify(at(a.path ?? '.'))} | sort || true`);
  const edit = (a: Args) => {
    const text = readFileSync(at(a.file_path), 'utf8');
    writeFileSync(at(a.file_path), text.replace(String(a.old_string), String(a.new_string)));
    return 'ok';
  };
  return {
    Read: (a: Args) => readFileSync(at(a.file_path), 'utf8'),
    NotebookRead: (a: Args) => readFileSync(at(a.notebook_path), 'utf8'),
    LS: (a: Args) =>
      readdirSync(at(a.path ?? '.'))
        .sort()
        .join(' '),
    Grep: grep,
    Glob: (a: Args) => sh(`shopt -s globstar nullglob; cd ${JSON.stringify(at(a.path ?? '.'))} && printf '%s\\n' ${String(a.pattern)}`),
    Edit: edit,
    MultiEdit: (a: Args) => {
      for (const e of a.edits as Args[]) edit({ file_path: a.file_path, ...e });
      return 'ok';
    },
    Write: (a: Args) => {
      writeFileSync(at(a.file_path), String(a.content));
      return 'ok';
    },
    NotebookEdit: (a: Args) => {
      writeFileSync(at(a.notebook_path), String(a.new_source));
      return 'ok';
    },
    TodoWrite: () => 'Todos have been modified successfully',
    Bash: (a: Args) => sh(String(a.command)),
  };
}

/** One agent: `use(name, input)` runs one tool_use block through the cache, as a model response would. */
function agent(cache = new ToolCache().registerAll(claudeCodeTools())) {
  const run = handlers();
  let n = 0;
  const use = async (name: string, input: Args) => {
    const [r] = await cache.runToolUses([{ type: 'tool_use', id: `toolu_${++n}`, name, input }], run, { scope: '' });
    return { text: unmark(r?.content), hit: String(r?.content).endsWith('[cached]') };
  };
  return { cache, use };
}

describe('claudeCodeTools(): the preset keeps reads fresh on real files', () => {
  it('Edit then Read (absolute paths, as Claude Code spells them): the Read shows the edit; another file stays a hit', async () => {
    const { use } = agent();
    const a = join(root, 'src', 'a.ts');
    const b = join(root, 'src', 'b.ts');
    await use('Read', { file_path: a });
    await use('Read', { file_path: b });
    expect(await use('Read', { file_path: a })).toEqual({ text: 'const a = 1;\n', hit: true });
    await use('Edit', { file_path: a, old_string: '1', new_string: '2' });
    expect(await use('Read', { file_path: a })).toEqual({ text: 'const a = 2;\n', hit: false });
    expect((await use('Read', { file_path: b })).hit).toBe(true);
  });

  it('MultiEdit, Write and NotebookEdit evict the reads of their file (Read with offset/limit, NotebookRead)', async () => {
    const { use } = agent();
    const a = join(root, 'src', 'a.ts');
    const nb = join(root, 'notes.ipynb');
    await use('Read', { file_path: a, offset: 1, limit: 10 });
    await use('NotebookRead', { notebook_path: nb });
    await use('MultiEdit', { file_path: a, edits: [{ old_string: 'a', new_string: 'z' }] });
    expect(await use('Read', { file_path: a, offset: 1, limit: 10 })).toEqual({ text: 'const z = 1;\n', hit: false });
    await use('Write', { file_path: a, content: 'new\n' });
    expect(await use('Read', { file_path: a, offset: 1, limit: 10 })).toEqual({ text: 'new\n', hit: false });
    expect((await use('NotebookRead', { notebook_path: nb })).hit).toBe(true);
    await use('NotebookEdit', { notebook_path: nb, new_source: 'cell 2' });
    expect(await use('NotebookRead', { notebook_path: nb })).toEqual({ text: 'cell 2', hit: false });
  });

  // With `cwd` the working directory is exact (without it, any absolute write evicts every relative read: dir13).
  it.each([false, true])(
    'Write of a new file then Grep / Glob / LS over its directory (its path, or the working directory; cwd given: %s): each shows it',
    async (withCwd) => {
      const { use } = agent(new ToolCache(withCwd ? { cwd: root } : {}).registerAll(claudeCodeTools()));
      const src = join(root, 'src');
      const searches: Array<[string, Args]> = [
        ['Grep', { pattern: 'const', path: src }],
        ['Grep', { pattern: 'const', path: src, glob: '*.ts', output_mode: 'content', '-n': true }],
        ['Grep', { pattern: 'const' }],
        ['Glob', { pattern: '**/*.ts' }],
        ['Glob', { pattern: '**/*.ts', path: src }],
        ['Glob', { pattern: `${src}/**/*.ts` }],
        ['LS', { path: src }],
      ];
      const before = [];
      for (const [name, input] of searches) before.push(await use(name, input));
      for (const [name, input] of searches) expect((await use(name, input)).hit).toBe(true);
      await use('Write', { file_path: join(src, 'new.ts'), content: 'const n = 1;\n' });
      for (const [i, [name, input]] of searches.entries()) {
        const after = await use(name, input);
        expect([name, input, after.hit]).toEqual([name, input, false]);
        expect(after.text).not.toEqual(before[i]?.text);
        expect(String(after.text)).toContain('new.ts');
      }
    },
  );

  it('Bash `sed -i` then Read: the shell is a write to everything', async () => {
    const { use } = agent();
    const a = join(root, 'src', 'a.ts');
    await use('Read', { file_path: a });
    await use('Grep', { pattern: 'const a', path: join(root, 'src') });
    await use('Bash', { command: `sed -i 's/1/3/' src/a.ts`, description: 'bump a' });
    expect(await use('Read', { file_path: a })).toEqual({ text: 'const a = 3;\n', hit: false });
    expect(String((await use('Grep', { pattern: 'const a', path: join(root, 'src') })).text)).toContain('const a = 3;');
  });

  it('TodoWrite then Read stays a hit (harmless); WebSearch is cached', async () => {
    const { cache, use } = agent();
    const a = join(root, 'src', 'a.ts');
    await use('Read', { file_path: a });
    await use('TodoWrite', { todos: [{ content: 'fix a', status: 'in_progress', activeForm: 'Fixing a' }] });
    expect(await use('Read', { file_path: a })).toEqual({ text: 'const a = 1;\n', hit: true });
    expect(cache.policy('WebSearch')?.kind).toBe('read');
    expect(cache.policy('Bash')).toBeUndefined();
    expect(cache.policy('Task')).toBeUndefined();
  });

  it('a write whose path argument is missing evicts every file read; a ttl option applies; bad options are named', async () => {
    const { use } = agent(new ToolCache({ cwd: root }).registerAll(claudeCodeTools({ ttl: { turns: 1 } })));
    const a = join(root, 'src', 'a.ts');
    await use('Read', { file_path: a });
    writeFileSync(a, 'changed\n');
    await use('Write', { content: 'x' }); // no file_path: the handler writes a file named `undefined`; the tag is every file
    expect(await use('Read', { file_path: a })).toEqual({ text: 'changed\n', hit: false });
    expect(() => claudeCodeTools({ tll: { turns: 1 } } as never)).toThrow(/claudeCodeTools\.tll.*did you mean claudeCodeTools\.ttl/);
    expect(() => new ToolCache().registerAll(claudeCodeTools({ ttl: { turns: -1 } }))).toThrow(InvalidOptionError);
    expect(() => new ToolCache().registerAll(claudeCodeTools()).registerAll({ Read: {} })).toThrow(/tools\.Read/);
  });
});

/**
 * README's "Project layout" is the folder map a newcomer reads first: it must
 * match the tree. Every folder and file at the top of src/ is in the map and
 * every folder in the map is in src/; every file of render/ is named (the map
 * shows the five passes and what surrounds them); every file or folder the map
 * names under an entry exists there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The fenced block under "## Project layout". */
function layoutBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Project layout\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? '';
  return /^```\n([\s\S]*?)^```/m.exec(section)?.[1] ?? '';
}

interface Entry {
  /** `src/render`, `test`, …: the folder the entry describes. */
  readonly dir: string;
  /** The entry's text: its line and the indented lines that continue it. */
  readonly text: string;
}

/**
 * Entries of the map: a top-level line (`src/`, `test/`, …) or a line indented
 * two spaces under `src/` (`  render/ …`); deeper-indented lines continue the
 * entry above. The `src/` line's own entry collects the top-level files.
 */
function entries(block: string): Entry[] {
  const out: { dir: string; text: string }[] = [];
  let top = '';
  for (const line of block.split('\n')) {
    if (line.trim() === '') continue;
    const topLevel = /^([\w.-]+)\/(\s|$)/.exec(line);
    const sub = /^ {2}([\w.-]+)\/(\s|$)/.exec(line);
    const file = /^ {2}[\w.-]+\.ts(\s|$)/.test(line);
    if (topLevel) {
      top = topLevel[1]!;
      out.push({ dir: top, text: line.slice(topLevel[0].length) });
    } else if (sub && top === 'src') out.push({ dir: `src/${sub[1]}`, text: line.slice(sub[0].length) });
    else if (file && top === 'src') out.push({ dir: 'src', text: line });
    else if (out.length > 0) out.at(-1)!.text += `\n${line}`;
  }
  return out;
}

/** Whether `name` is somewhere under `dir` (a file or a folder, any depth). */
function under(dir: string, name: string): boolean {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name === name) return true;
    if (entry.isDirectory() && entry.name !== 'node_modules' && under(join(dir, entry.name), name)) return true;
  }
  return false;
}

describe("README's Project layout", () => {
  const block = layoutBlock();
  const map = entries(block);

  it('is there, with src/, test/, fixtures/ and docs/', () => {
    expect(block).not.toBe('');
    for (const top of ['src', 'test', 'fixtures', 'docs']) expect(map.map((e) => e.dir)).toContain(top);
  });

  it('lists every folder of src/ and no folder that is not there', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}`)
      .sort();
    const listed = map
      .map((e) => e.dir)
      .filter((d) => d.startsWith('src/'))
      .sort();
    expect(listed).toEqual(folders);
  });

  it('names every file at the top of src/', () => {
    const top = map
      .filter((e) => e.dir === 'src')
      .map((e) => e.text)
      .join('\n');
    for (const f of readdirSync(join(ROOT, 'src')).filter((n) => statSync(join(ROOT, 'src', n)).isFile())) {
      expect(top, `src/${f} is not in the map`).toMatch(new RegExp(`(^|[\\s(])${f.replace('.', '\\.')}\\b`));
    }
  });

  it('names every file of render/ (the passes and what surrounds them)', () => {
    const render = map.find((e) => e.dir === 'src/render')!.text;
    for (const f of readdirSync(join(ROOT, 'src/render'))) {
      expect(render, `src/render/${f} is not in the map`).toMatch(new RegExp(`(^|[\\s(])${f.replace('.', '\\.')}\\b`));
    }
  });

  it('names only files and folders that exist where the entry says', () => {
    const missing: string[] = [];
    for (const { dir, text } of map) {
      for (const m of text.matchAll(/(?<![\w./-])([\w-]+(?:\.ts|\/))(?=[\s,:)·]|$)/gm)) {
        const name = m[1]!.replace(/\/$/, '');
        if (!existsSync(join(ROOT, dir)) || !under(dir, name)) missing.push(`${dir}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

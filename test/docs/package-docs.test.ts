/**
 * The README a user reads is the packed one (node_modules/cachepoint/README.md, the npm page): its links to the
 * guides (`[docs/drop-in.md](docs/drop-in.md)`, …) and the guides' links to each other must resolve inside the
 * package. The package shipped dist/ and the demo trace only, so every one of those links was dead for a user, and
 * the README's "details in docs/…" had nothing to open (package.json has no repository to resolve them against).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The files `npm pack` puts in the tarball (paths relative to the package root). */
function packed(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return new Set((JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
}

/** The relative link targets of a markdown file (no URLs, no same-page anchors), resolved against the package root. */
function links(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((t) => t !== '' && !/^[a-z]+:/i.test(t))
    .map((t) => normalize(join(dirname(file), t)));
}

describe('the packed README and guides', () => {
  it('ship every file their relative links point at', { timeout: 60_000 }, () => {
    const files = packed();
    const seen = new Set<string>();
    const queue = ['README.md'];
    const dead: string[] = [];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const target of links(file)) {
        if (!files.has(target)) dead.push(`${file} -> ${target}`);
        else if (target.endsWith('.md')) queue.push(target);
      }
    }
    expect(dead).toEqual([]);
    // The README's links reach the guides (so the walk above looked at them).
    expect([...seen]).toEqual(expect.arrayContaining(['README.md', 'docs/drop-in.md', 'docs/ai-sdk.md', 'docs/redis.md']));
  });

  it("ship the user guides, not the benchmarks' dated history; a guide that names a doc not shipped says it is the repository's", { timeout: 60_000 }, () => {
    const files = packed();
    const guides = [...files].filter((f) => f.endsWith('.md'));
    // docs/benchmarks.md is ~380 KB of dated measurement notes, a seventh of the unpacked package: a contributor's
    // record, kept in the repository. Every other guide ships.
    expect(files.has('docs/benchmarks.md')).toBe(false);
    expect(guides).toEqual(expect.arrayContaining(['README.md', 'docs/drop-in.md', 'docs/ai-sdk.md', 'docs/providers.md', 'docs/trace-format.md']));
    const named: string[] = [];
    for (const guide of guides) {
      const text = readFileSync(join(ROOT, guide), 'utf8');
      for (const m of text.matchAll(/(the\s+repository's\s+)?`?(docs\/[\w-]+\.md)/g))
        if (!files.has(m[2]!) && m[1] === undefined) named.push(`${guide}: ${m[2]}`);
    }
    expect(named).toEqual([]);
  });

  it("every #anchor of a relative link names a heading of the file it points at (GitHub's heading ids)", () => {
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
    const headings = (file: string) =>
      new Set(
        readFileSync(join(ROOT, file), 'utf8')
          .replace(/^```[\s\S]*?^```/gm, '')
          .split('\n')
          .filter((l) => /^#{1,6} /.test(l))
          .map((l) => slug(l.replace(/^#+ /, ''))),
      );
    const broken: string[] = [];
    const guides = ['README.md', ...[...packedMarkdown()].filter((f) => f.startsWith('docs/'))];
    for (const file of guides) {
      for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        const [path, anchor] = m[1]!.split('#');
        if (anchor === undefined || /^[a-z]+:/i.test(m[1]!)) continue;
        const target = path === '' ? file : normalize(join(dirname(file), path!));
        if (!headings(target).has(anchor)) broken.push(`${file}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("opens with the quick start of a clone, exactly two commands, and then says the package user's", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const first = /^```sh\n([\s\S]*?)^```/m.exec(readme)?.[1] ?? '';
    // The company's rule: `npm install && npm start` (the demo) and `npm test`, nothing else.
    expect(
      first
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => l.replace(/\s+#.*$/, '')),
    ).toEqual(['npm install && npm start', 'npm test']);
    // A user of the npm package has neither script: the paragraph after it gives the package's way to the demo.
    const after = readme.slice(readme.indexOf(first) + first.length).split('\n## ')[0]!;
    expect(after).toMatch(/`npm install cachepoint`/);
    expect(after).toMatch(/`npx cachepoint demo`/);
  });
});

/** The markdown files the package ships. */
function packedMarkdown(): string[] {
  return [...packed()].filter((f) => f.endsWith('.md'));
}

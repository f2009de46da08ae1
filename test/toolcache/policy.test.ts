import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { callDependencies, fileTag, parseTag, readEntryTags, resolvePolicy, writeInvalidationTags, type ToolPolicy } from '../../src/toolcache/policy.js';

const bad = (policy: unknown) => () => resolvePolicy('Read', policy as ToolPolicy<never>);

describe('resolvePolicy', () => {
  it('classifies read, write and pass-through tools', () => {
    expect(resolvePolicy('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'] })).toMatchObject({ kind: 'read', ttlTurns: 5 });
    expect(resolvePolicy('Fetch', { cacheable: true, ttl: { seconds: 30 } })).toMatchObject({ kind: 'read', ttlMs: 30_000 });
    expect(resolvePolicy('Edit', { writes: ['file'] })).toMatchObject({ kind: 'write' });
    expect(resolvePolicy('Bash', {})).toMatchObject({ kind: 'passthrough' });
    expect(resolvePolicy('Peek', { reads: ['file'] })).toMatchObject({ kind: 'passthrough' }); // caching is off unless declared
  });

  it('rejects bad options, naming the tool and the option', () => {
    expect(bad({ cacheable: true })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttl: a cacheable tool needs a TTL: { turns: n } or { seconds: n }]`,
    );
    expect(bad({ cacheable: true, ttl: { turns: 1.5 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttl.turns: must be a non-negative integer, got 1.5]`,
    );
    expect(bad({ cacheable: true, ttl: { turns: 1, seconds: 2 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttl: give exactly one of { turns } or { seconds }]`,
    );
    expect(bad({ cacheable: true, ttl: { seconds: -1 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttl.seconds: must be a finite number ≥ 0, got -1]`,
    );
    expect(bad({ cacheable: true, ttl: { turns: 1 }, writes: ['file'] })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.cacheable: a tool that declares \`writes\` is a write tool and is never cached]`,
    );
    expect(bad({ writes: [] })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.writes: a write tool must name what it writes (families, tags, or a tags extractor)]`,
    );
    expect(bad({ ttl: { turns: 2 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttl: a TTL without \`cacheable: true\` does nothing; add \`cacheable: true\` or remove it]`,
    );
    expect(bad({ cacheable: true, ttl: { turns: 1 }, ttlTurns: 3 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.ttlTurns: unknown option; known: cacheable, ttl, reads, writes, tags]`,
    );
    expect(bad({ cacheable: true, ttl: { turns: 1 }, reads: ['file', 'fi le:x'] })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.reads[1]: "fi le:x" has family "fi le"; a family is letters, digits, "_", "-" or "." and is not the reserved word "family"]`,
    );
    expect(bad({ cacheable: 'yes' })).toThrow(InvalidOptionError);
    expect(bad({ tags: ['file:a'] })).toThrow(/tools\.Read\.tags/);
  });
});

describe('tags', () => {
  it('parses entity and family tags', () => {
    expect(parseTag('file:src/a:b.ts', 'x')).toEqual({ family: 'file', id: 'src/a:b.ts' });
    expect(parseTag('file:*', 'x')).toEqual({ family: 'file' });
    expect(parseTag('file', 'x')).toEqual({ family: 'file' });
    expect(() => parseTag('file:', 'where')).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: where: "file:" has an empty entity id; use "file:*" for the whole family]`,
    );
    expect(() => parseTag('family:file', 'where')).toThrow(/reserved word/);
  });

  it('stores entity and family-membership tags on reads; entity writes evict the entity and whole-family readers; family writes evict all readers of the family', () => {
    const readA = readEntryTags([{ family: 'file', id: 'a' }]);
    const glob = readEntryTags([{ family: 'file' }]);
    const user = readEntryTags([{ family: 'user', id: '42' }]);
    // `~all`: every read entry carries it, so a tool nobody declared (a write to everything) evicts it.
    // `file~dir:`: `a` is under the working directory, so a write to `.` (a directory) reaches it (path-tags.ts).
    expect(readA).toEqual(['family:file', 'file:a', 'file~dir:', '~all']);
    expect(glob).toEqual(['family:file', 'file:*', '~all']);

    const hits = (write: readonly string[], entry: readonly string[]) => write.some((t) => entry.includes(t));
    const editA = writeInvalidationTags([{ family: 'file', id: 'a' }]);
    const editB = writeInvalidationTags([{ family: 'file', id: 'b' }]);
    const checkout = writeInvalidationTags([{ family: 'file' }]);
    // `file~in:a`: a write to relative `a` also reaches reads of absolute paths that end in `/a` (path-tags.ts).
    // `file:` (the listing of `.`, the directory above `a`) and `file~dir:a` (reads under `a`, were it a directory).
    // `file:/`, `file~dir:/`: every absolute read (one may list the working directory `a` is written into).
    expect(editA).toEqual(['file:', 'file:*', 'file:/', 'file:a', 'file~dir:/', 'file~dir:a', 'file~in:a']);
    expect(checkout).toEqual(['family:file']);
    expect([hits(editA, readA), hits(editA, glob), hits(editA, user)]).toEqual([true, true, false]);
    expect([hits(editB, readA), hits(editB, glob)]).toEqual([false, true]);
    expect([hits(checkout, readA), hits(checkout, glob), hits(checkout, user)]).toEqual([true, true, false]);
    expect([hits(['~all'], readA), hits(['~all'], glob), hits(['~all'], user), hits(['~all'], readEntryTags([]))]).toEqual([true, true, true, true]);
  });

  it('derives each dependency its own tags, however many were derived before (the tag lists are remembered by dependency)', () => {
    const file = { family: 'file', id: '/repo/src/a.ts' } as const;
    const read = [...readEntryTags([file])];
    const write = [...writeInvalidationTags([file])];
    // Same id in another family, and the whole family: neither may be answered with the file's list.
    expect(readEntryTags([{ family: 'user', id: '/repo/src/a.ts' }])).toEqual(['family:user', 'user:/repo/src/a.ts', '~all']);
    expect(writeInvalidationTags([{ family: 'user', id: '/repo/src/a.ts' }])).toEqual(['user:*', 'user:/repo/src/a.ts']);
    expect(readEntryTags([{ family: 'file' }])).toEqual(['family:file', 'file:*', '~all']);
    expect(writeInvalidationTags([{ family: 'file' }])).toEqual(['family:file']);
    // More distinct paths than are remembered, then the first again: the same lists.
    for (let i = 0; i < 3000; i++) expect(readEntryTags([{ family: 'file', id: `/repo/f${i}.ts` }])).toContain(`file:/repo/f${i}.ts`);
    expect(readEntryTags([file])).toEqual(read);
    expect(writeInvalidationTags([file])).toEqual(write);
    expect(read).toContain('file~dir:/repo/src');
    expect(write).toContain('file~dir:/repo/src/a.ts');
    // Two dependencies are not one: both paths' tags.
    expect(writeInvalidationTags([file, { family: 'file', id: 'b.ts' }])).toEqual(expect.arrayContaining([...write, 'file:b.ts', 'file~in:b.ts']));
  });

  it('uses the extractor per call, bounded by the declared families, plus static entity tags', () => {
    const p = resolvePolicy('Read', {
      cacheable: true,
      ttl: { turns: 3 },
      reads: ['file', 'config:main'],
      tags: (a: { path: string }) => [fileTag(a.path)],
    });
    expect(callDependencies(p, { path: 'src/x.ts' })).toEqual([
      { family: 'file', id: 'src/x.ts' },
      { family: 'config', id: 'main' },
    ]);
    const leaky = resolvePolicy('Read', { cacheable: true, ttl: { turns: 3 }, reads: ['file'], tags: () => ['user:1'] });
    expect(() => callDependencies(leaky, {})).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read.tags: the extractor named family "user" but the tool declares reads: [file]; add it to reads]`,
    );
    const noExtractor = resolvePolicy('Glob', { cacheable: true, ttl: { turns: 3 }, reads: ['file:*'] });
    expect(callDependencies(noExtractor, { pattern: '**' })).toEqual([{ family: 'file' }]);
  });

  it('normalizes file paths so two spellings are one tag', () => {
    expect(fileTag('./src//a.ts')).toBe('file:src/a.ts');
    expect(fileTag('src/lib/../a.ts')).toBe('file:src/a.ts');
    expect(fileTag('src\\a.ts')).toBe('file:src/a.ts');
    expect(fileTag('/abs/./x/../y')).toBe('file:/abs/y');
    expect(fileTag('../up/a')).toBe('file:../up/a');
    expect(fileTag('.')).toBe('file:.');
    expect(fileTag('/')).toBe('file:/');
  });
});

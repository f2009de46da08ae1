/**
 * CallTargets.whole (judge23): a read whose arguments name one file and nothing else reads its whole text, which
 * the re-use model keeps at the file's chance after a partial read (render/reuse.ts). Each condition of the rule,
 * one case apiece.
 */
import { describe, expect, it } from 'vitest';
import { fileTag, type ToolPolicy } from '../../src/toolcache/policy.js';
import { callTargets } from '../../src/toolcache/targets.js';

describe('callTargets: which reads are whole', () => {
  it('a read naming one file and nothing else is whole, in any spelling of the path', () => {
    expect(callTargets('Read', { file_path: '/repo/src/a.ts' }).whole).toBe(true);
    const odd = callTargets('Read', { file_path: '/repo/./src/../src/a.ts' });
    expect(odd.whole).toBe(true);
    expect(odd.files).toEqual(['/repo/src/a.ts']);
  });

  it('a partial read, a read of two files, a read naming no file and a write are not', () => {
    expect(callTargets('Read', { file_path: '/repo/src/a.ts', offset: 10, limit: 20 }).whole).toBe(false);
    // Every argument is path-like, but it names two files: its text is neither file's whole text.
    expect(callTargets('read_file', { file_path: '/repo/src/a.ts', path: '/repo/src/b.ts' }).whole).toBe(false);
    expect(callTargets('Grep', { path: '/repo/src' }).whole).toBe(false);
    // Only path arguments, but a write: its result is no file's text.
    expect(callTargets('delete_file', { path: '/repo/src/a.ts' }).whole).toBe(false);
  });

  it('with a tool policy: a read whose tags name a second file is not whole; one the policy makes a write is not', () => {
    const policies = {
      read_doc: { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path), 'file:/repo/docs/index.md'] },
      open_doc: { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] },
      save_doc: { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] },
    } as unknown as Record<string, ToolPolicy<never>>;
    expect(callTargets('read_doc', { path: '/repo/docs/a.md' }, policies).whole).toBe(false);
    expect(callTargets('open_doc', { path: '/repo/docs/a.md' }, policies).whole).toBe(true);
    expect(callTargets('save_doc', { path: '/repo/docs/a.md' }, policies).whole).toBe(false);
  });
});

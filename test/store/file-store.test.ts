import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PayloadStoreError, UnsafePathError } from '../../src/store/errors.js';
import { fileNameOf, FilePayloadStore } from '../../src/store/file.js';
import { SAMPLES, TEXT } from './payloads.js';
import { describePayloadStore, UNSAFE_PATHS } from './store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'cachepoint-store-'));
let n = 0;
const freshDir = (): string => join(root, `store-${++n}`);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describePayloadStore('FilePayloadStore', () => new FilePayloadStore(freshDir(), { fsync: false }));

describe('FilePayloadStore', () => {
  it('finds every payload, byte-identical, with its turn and reason after reopening the folder', () => {
    const dir = freshDir();
    const first = new FilePayloadStore(dir);
    for (const [path, payload] of SAMPLES) first.put(path, payload, { reason: 'compact' });
    const again = new FilePayloadStore(dir);
    expect(again.paths()).toEqual(first.paths());
    for (const [path, payload] of SAMPLES) {
      expect(JSON.stringify(again.get(path)?.payload)).toBe(JSON.stringify(payload));
      expect(again.get(path)?.reason).toBe('compact');
    }
    expect(again.byTurn(2)).toEqual(first.byTurn(2));
    expect(again.put(SAMPLES[0]![0], SAMPLES[0]![1], { reason: 'compact' })).toBe('unchanged');
    expect(again.search('backoff').map((h) => h.path)).toEqual(first.search('backoff').map((h) => h.path));
  });

  it('writes one flat file per path, named by a reversible safe encoding', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    store.put('turns/3/rounds/2/results/toolu_01AbC', TEXT, { reason: 'prune' });
    store.put('turns/3/rounds/2/results/toolu_01abc', TEXT, { reason: 'prune' });
    store.put('envelope/tools/my.tool', TEXT, { reason: 'agent' });
    expect(readdirSync(dir).sort()).toEqual([
      'envelope+tools+my%2Etool.json',
      'turns+3+rounds+2+results+toolu_01^ab^c.json',
      'turns+3+rounds+2+results+toolu_01abc.json',
    ]);
    const record = JSON.parse(readFileSync(join(dir, 'envelope+tools+my%2Etool.json'), 'utf8')) as unknown;
    expect(record).toEqual({ v: 1, path: 'envelope/tools/my.tool', reason: 'agent', payload: TEXT });
  });

  it('keeps very long paths under the file-name limit with a hash, and still reads them back', () => {
    const dir = freshDir();
    const path = `turns/1/rounds/1/results/${'toolu_'.padEnd(400, 'x')}`;
    const store = new FilePayloadStore(dir);
    store.put(path, TEXT, { reason: 'prune' });
    const [name] = readdirSync(dir);
    expect(name!.length).toBeLessThanOrEqual(205);
    expect(name).toBe(fileNameOf(path));
    expect(new FilePayloadStore(dir).get(path)?.payload).toEqual(TEXT);
  });

  it('writes nothing inside or outside the folder for traversal attempts', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    const before = readdirSync(root).sort();
    for (const [path] of UNSAFE_PATHS) {
      expect(() => store.put(path, TEXT, { reason: 'prune' })).toThrow(UnsafePathError);
      expect(() => fileNameOf(path)).toThrow(UnsafePathError);
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(root).sort()).toEqual(before);
    expect(existsSync(join(root, 'outside'))).toBe(false);
  });

  it('names the rule and the fix in the unsafe-path error', () => {
    expect(() => fileNameOf('turns/1/../../etc/passwd')).toThrowErrorMatchingInlineSnapshot(
      `[UnsafePathError: "turns/1/../../etc/passwd": the path has a ".." segment. A path is relative, '/'-separated, like "turns/3/rounds/2/results/toolu_01"]`,
    );
  });

  it('does not trust a file whose name is not the encoding of the path inside it', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    store.put('turns/1/user/0', TEXT, { reason: 'prune' });
    // A planted file claiming a path that encodes elsewhere (e.g. copied in by hand).
    writeFileSync(join(dir, 'planted.json'), JSON.stringify({ v: 1, path: 'turns/2/user/0', reason: 'prune', payload: TEXT }));
    expect(() => new FilePayloadStore(dir)).toThrow(PayloadStoreError);
    try {
      new FilePayloadStore(dir);
    } catch (e) {
      expect((e as PayloadStoreError).reason).toBe('corrupt');
      expect((e as Error).message).toContain('belongs in turns+2+user+0.json');
    }
  });

  it('reports a corrupt file as a PayloadStoreError naming the file', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    store.put('turns/1/user/0', TEXT, { reason: 'prune' });
    writeFileSync(join(dir, 'turns+1+user+0.json'), '{"v":1,"path":');
    expect(() => store.get('turns/1/user/0')).toThrow(/turns\+1\+user\+0\.json .* is not valid JSON/);
  });

  it('skips temp files left by a crash between write and rename', () => {
    const dir = freshDir();
    new FilePayloadStore(dir).put('turns/1/user/0', TEXT, { reason: 'prune' });
    writeFileSync(join(dir, '.tmp-999-1-turns+1+user+0.json'), '{"v":1,"pa');
    const store = new FilePayloadStore(dir);
    expect(store.paths()).toEqual(['turns/1/user/0']);
    expect(store.get('turns/1/user/0')?.payload).toEqual(TEXT);
  });

  it('leaves no temp file behind after writes', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    for (const [path, payload] of SAMPLES) store.put(path, payload, { reason: 'prune' });
    store.put(SAMPLES[0]![0], { type: 'text', text: 'replaced' }, { reason: 'prune' });
    expect(readdirSync(dir).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(SAMPLES.length);
  });
});

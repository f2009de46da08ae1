import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsafePathError } from '../../src/recall/errors.js';
import { type FileStoreProblem, fileNameOf, FilePayloadStore } from '../../src/recall/file.js';
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

  it('does not trust a file whose name is not the encoding of the path inside it: reported and quarantined, the rest stays', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    store.put('turns/1/user/0', TEXT, { reason: 'prune' });
    // A planted file claiming a path that encodes elsewhere (e.g. copied in by hand).
    writeFileSync(join(dir, 'planted.json'), JSON.stringify({ v: 1, path: 'turns/2/user/0', reason: 'prune', payload: TEXT }));
    const problems: FileStoreProblem[] = [];
    const reopened = new FilePayloadStore(dir, { onProblem: (p) => problems.push(p) });
    expect(reopened.paths()).toEqual(['turns/1/user/0']);
    expect(reopened.has('turns/2/user/0')).toBe(false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'planted.json', kind: 'corrupt' });
    expect(problems[0]!.message).toContain('belongs in turns+2+user+0.json');
    expect(existsSync(join(dir, problems[0]!.quarantinedAs!))).toBe(true);
    expect(existsSync(join(dir, 'planted.json'))).toBe(false);
    expect(reopened.problems).toEqual(problems);
  });

  it('a torn (truncated) file costs only itself: the constructor reports and quarantines it, every other payload is recalled', () => {
    const dir = freshDir();
    const store = new FilePayloadStore(dir);
    for (const [path, payload] of SAMPLES) store.put(path, payload, { reason: 'prune' });
    const [tornPath] = SAMPLES[0]!;
    const tornFile = fileNameOf(tornPath);
    const full = readFileSync(join(dir, tornFile), 'utf8');
    writeFileSync(join(dir, tornFile), full.slice(0, Math.floor(full.length / 2)));
    const problems: FileStoreProblem[] = [];
    const reopened = new FilePayloadStore(dir, { onProblem: (p) => problems.push(p) });
    expect(problems.map((p) => [p.file, p.kind])).toEqual([[tornFile, 'corrupt']]);
    expect(problems[0]!.message).toMatch(/is not valid JSON/);
    for (const [path, payload] of SAMPLES.slice(1)) expect(JSON.stringify(reopened.get(path)?.payload)).toBe(JSON.stringify(payload));
    expect(reopened.get(tornPath)).toBeUndefined();
    expect(reopened.search('the').every((h) => h.path !== tornPath)).toBe(true);
    // Quarantined: a third opening finds nothing wrong.
    const third: FileStoreProblem[] = [];
    expect(new FilePayloadStore(dir, { onProblem: (p) => third.push(p) }).size).toBe(SAMPLES.length - 1);
    expect(third).toEqual([]);
  });

  it('a file corrupted after opening: get reports and quarantines it and answers undefined; search skips it', () => {
    const dir = freshDir();
    const problems: FileStoreProblem[] = [];
    const store = new FilePayloadStore(dir, { onProblem: (p) => problems.push(p) });
    store.put('turns/1/user/0', TEXT, { reason: 'prune' });
    store.put('turns/1/user/1', { type: 'text', text: 'another payload' }, { reason: 'prune' });
    writeFileSync(join(dir, 'turns+1+user+0.json'), '{"v":1,"path":');
    expect(store.get('turns/1/user/0')).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/turns\+1\+user\+0\.json .* is not valid JSON/);
    expect(store.has('turns/1/user/0')).toBe(false);
    expect(store.search('payload').map((h) => h.path)).toEqual(['turns/1/user/1']);
  });

  it('never follows a symbolic link: a dangling link and a link to a valid record outside are reported and quarantined (the link, not its target)', () => {
    const dir = freshDir();
    const outside = freshDir();
    new FilePayloadStore(outside).put('turns/2/user/0', { type: 'text', text: 'outside secret' }, { reason: 'prune' });
    const store = new FilePayloadStore(dir);
    store.put('turns/1/user/0', TEXT, { reason: 'prune' });
    symlinkSync(join(outside, 'turns+2+user+0.json'), join(dir, 'turns+2+user+0.json'));
    symlinkSync(join(outside, 'nothing-here.json'), join(dir, 'turns+3+user+0.json'));
    mkdirSync(join(dir, 'turns+4+user+0.json'));
    const problems: FileStoreProblem[] = [];
    const reopened = new FilePayloadStore(dir, { onProblem: (p) => problems.push(p) });
    expect(reopened.paths()).toEqual(['turns/1/user/0']);
    expect(reopened.get('turns/2/user/0')).toBeUndefined();
    expect(problems.map((p) => [p.file, p.kind])).toEqual([
      ['turns+2+user+0.json', 'link'],
      ['turns+3+user+0.json', 'link'],
      ['turns+4+user+0.json', 'not_a_file'],
    ]);
    // The target outside is untouched.
    expect(readFileSync(join(outside, 'turns+2+user+0.json'), 'utf8')).toContain('outside secret');
    for (const p of problems) expect(lstatSync(join(dir, p.quarantinedAs!)).isFile()).toBe(false);
  });

  it('removes temp files left by a crash (their process is gone), keeps one whose writer still runs, and reads the intact target', () => {
    const dir = freshDir();
    new FilePayloadStore(dir).put('turns/1/user/0', TEXT, { reason: 'prune' });
    // No process has id 2^22 + 1 (above Linux's pid_max default of 2^22).
    const dead = `.tmp-${2 ** 22 + 1}-1-turns+1+user+0.json`;
    const live = `.tmp-${process.pid}-99-turns+1+user+0.json`;
    writeFileSync(join(dir, dead), '{"v":1,"pa');
    writeFileSync(join(dir, live), '{"v":1,"pa');
    const store = new FilePayloadStore(dir);
    expect(store.paths()).toEqual(['turns/1/user/0']);
    expect(store.get('turns/1/user/0')?.payload).toEqual(TEXT);
    expect(existsSync(join(dir, dead))).toBe(false);
    expect(existsSync(join(dir, live))).toBe(true);
    expect(store.problems).toEqual([]);
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

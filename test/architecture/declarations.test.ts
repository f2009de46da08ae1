/**
 * The declarations a user compiles against: `npm run build`'s compiler run (tsconfig.build.json, declarations only,
 * into a scratch folder) must succeed, and every code entry of package.json's `exports` must typecheck from a
 * consumer's file the way a user's project reads it: the package resolved by name through `exports` (nodenext),
 * strict with `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`, `skipLibCheck` off (so our .d.ts are
 * checked themselves; another package's errors are not counted). A declaration that cannot be emitted or does not check was caught only by the slow consumer
 * suite (test/consumer/, a packed tarball and an npm install per case); this is the fast suite's copy of that check.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CONSUMER_COMPILER_OPTIONS } from '../consumer/project.js';
import { codeEntries } from '../helpers/package-exports.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// Outside the repository: the consumer sees only what a user installs next to cachepoint (its peers and @types/node,
// linked from the repository), so a declaration that names a devDependency is "Cannot find module" here too.
const WORK = mkdtempSync(join(tmpdir(), 'cachepoint-declarations-'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

afterAll(() => rmSync(WORK, { recursive: true, force: true }));

function tsc(args: readonly string[], cwd = ROOT): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [TSC, ...args], { cwd, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

it('emits the build declarations, and each exports entry typechecks in a strict consumer (skipLibCheck off)', () => {
  const pkgDir = join(WORK, 'node_modules', 'cachepoint');
  mkdirSync(pkgDir, { recursive: true });
  for (const name of [...Object.keys(pkg.peerDependencies), '@types/node']) {
    mkdirSync(dirname(join(WORK, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(WORK, 'node_modules', name), 'dir');
  }
  // The build's own configuration: what fails here fails `npm run build`.
  const build = tsc(['-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--outDir', join(pkgDir, 'dist')]);
  expect(build.out).toBe('');
  expect(build.status).toBe(0);
  cpSync(join(ROOT, 'package.json'), join(pkgDir, 'package.json'));

  const entries = codeEntries(ROOT).map(([sub]) => (sub === '.' ? 'cachepoint' : `cachepoint/${sub.slice(2)}`));
  const consumer = entries.map((name, i) => `import * as entry${i} from '${name}';`).join('\n');
  writeFileSync(join(WORK, 'consumer.ts'), `${consumer}\nexport { ${entries.map((_, i) => `entry${i}`).join(', ')} };\n`);
  writeFileSync(join(WORK, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(WORK, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...CONSUMER_COMPILER_OPTIONS,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
  // Errors in our declarations or the consumer file; another package's own .d.ts under these options is not ours to fix
  // (`ai`'s do not check under exactOptionalPropertyTypes with skipLibCheck off).
  const ours = tsc(['-p', 'tsconfig.json'], WORK)
    .out.split('\n')
    .filter((l) => /error TS/.test(l) && (l.startsWith('consumer.ts') || l.startsWith('node_modules/cachepoint/')));
  expect(ours).toEqual([]);
}, 300_000);

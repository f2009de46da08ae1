/**
 * The consumer-project harness of the *.consumer.ts tests: pack cachepoint,
 * install the tarball in a fresh project next to the given dependencies,
 * compile files of test/consumer/project/ there (strict, skipLibCheck off: our
 * .d.ts are checked against what the project has installed), run one.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = process.cwd();

export const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** How a consumer project compiles (strict, skipLibCheck off: our .d.ts are checked), before its own extra options. */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'es2022',
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  skipLibCheck: false,
} as const;

/** A temp folder holding the packed tarball (built by package.json's `prepack`). */
export interface Packed {
  readonly work: string;
  readonly tarball: string;
  remove(): void;
}

export function pack(prefix: string): Packed {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const out = npm(['pack', '--pack-destination', work, '--silent'], ROOT).trim().split('\n').at(-1)!;
  return { work, tarball: join(work, out), remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** A project in `work/name` with cachepoint and `dependencies` installed and `files` copied from test/consumer/project/. */
export function install(
  packed: Packed,
  name: string,
  dependencies: Readonly<Record<string, string>>,
  files: readonly string[],
  types: readonly string[] = [],
  /** Extra compiler options (a demanding user's flags, e.g. `exactOptionalPropertyTypes`). */
  compilerOptions: Readonly<Record<string, unknown>> = {},
): string {
  const dir = join(packed.work, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { cachepoint: `file:${packed.tarball}`, ...dependencies } }),
  );
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  for (const f of files) copyFileSync(join(ROOT, 'test', 'consumer', 'project', f), join(dir, f));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...CONSUMER_COMPILER_OPTIONS,
        outDir: 'out',
        types,
        ...compilerOptions,
      },
      files,
    }),
  );
  return dir;
}

/** The project's type errors (the first 10 lines that say `error TS`); it is emitted to out/ either way. */
export function typeErrors(dir: string): string[] {
  let tsc = '';
  try {
    tsc = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (err) {
    tsc = String((err as { stdout?: string }).stdout ?? err);
  }
  return tsc
    .split('\n')
    .filter((l) => l.includes('error TS'))
    .slice(0, 10);
}

/** Runs the compiled `file` (out/<file>.js) and parses its last output line as JSON. */
export function runReport<T>(dir: string, file: string): T {
  const out = execFileSync(process.execPath, [join(dir, 'out', file.replace(/\.ts$/, '.js'))], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

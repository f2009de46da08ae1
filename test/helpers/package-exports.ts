/**
 * The code entry points of package.json's `exports`: every subpath but the ones that serve a file as is
 * (`./package.json`, a string target), which have no types, no source and no `typesVersions` mirror.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where an entry point's types and JavaScript are. */
export interface CodeEntry {
  readonly types: string;
  readonly default: string;
}

/** `[subpath, target]` of each code entry point of the package.json under `root`, in `exports` order. */
export function codeEntries(root: string = process.cwd()): [string, CodeEntry][] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, CodeEntry | string> };
  return Object.entries(pkg.exports).filter((e): e is [string, CodeEntry] => typeof e[1] === 'object');
}

/**
 * One vocabulary (DESIGN.md, "Words"): a *cache point* is our concept (①..④
 * and ⓪), a *marker* is what carries it in a request (`cache_control` on
 * Anthropic, `prompt_cache_breakpoint` on OpenAI, `cachePoint` on Bedrock).
 * "Breakpoint" appears only where we quote a provider: an API name, or the
 * words of its docs. Scanned: src/, test/, docs/ and README.md (code,
 * comments, test names, CLI output, prose).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** API names: OpenAI's request field, the AI SDK's option for it, and our type named after the field. */
const API_NAMES = /prompt_cache_breakpoint|promptCacheBreakpoint|OpenAIPromptCacheBreakpoint/gi;

/** Quotes of the providers' docs, and a word that is not our concept; each with its file. */
const ALLOWED: readonly { readonly file: string; readonly text: string; readonly why: string }[] = [
  { file: 'src/providers/openai-profile.ts', text: 'latest 80 breakpoints in the conversation', why: "OpenAI's docs, quoted" },
  { file: 'src/providers/openai-profile.ts', text: 'applied to every … breakpoint …', why: "OpenAI's SDK docs, quoted" },
  {
    file: 'src/providers/openai-profile.ts',
    text: '"Each request can write up to four breakpoints … up to the latest 80 breakpoints … without a content-block lookback limit"',
    why: "OpenAI's SDK docs, quoted",
  },
  { file: 'docs/cache-points.md', text: 'calls it a *breakpoint*', why: "Anthropic's name for a marker" },
  { file: 'docs/simulator.md', text: '"write an entry at every breakpoint beyond the', why: "Anthropic's docs, quoted" },
  { file: 'src/synthetic/content.ts', text: "'the breakpoint'", why: "a debugger's breakpoint in generated prose" },
];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === '__snapshots__' ? [] : files(path);
    return /\.(ts|md)$/.test(e.name) ? [path] : [];
  });
}

/** `file:line: text` of every "breakpoint" that is neither an API name nor allowed. */
function strays(): string[] {
  const out: string[] = [];
  for (const file of [...files('src'), ...files('test'), ...files('docs'), 'README.md']) {
    const rel = relative(ROOT, join(ROOT, file)).replaceAll('\\', '/');
    let text = readFileSync(join(ROOT, file), 'utf8');
    for (const a of ALLOWED) if (a.file === rel) text = text.replaceAll(a.text, ' '.repeat(a.text.length));
    // This file names the word to forbid it.
    if (rel === 'test/architecture/vocabulary.test.ts') continue;
    text.split('\n').forEach((line, i) => {
      if (/breakpoint/i.test(line.replace(API_NAMES, ''))) out.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

describe('one vocabulary', () => {
  it('says cache point or marker, and "breakpoint" only in API names and quotes of the providers', () => {
    const found = strays();
    expect(found, `say "marker" (what carries a cache point in a request) or "cache point" (ours):\n${found.join('\n')}`).toEqual([]);
  });

  it('allows only quotes that are still there (a stale entry would hide a new use)', () => {
    const missing = ALLOWED.filter((a) => !readFileSync(join(ROOT, a.file), 'utf8').includes(a.text)).map((a) => `${a.file}: ${a.text}`);
    expect(missing).toEqual([]);
  });
});

/**
 * The README's "With the Vercel AI SDK" block compiles: it is the body of
 * docs/examples/ai-sdk-readme.ts (which `npm run typecheck` compiles), but for
 * the import path of cachepoint/ai-sdk.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('README: With the Vercel AI SDK', () => {
  it('shows exactly the compiled example', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('## With the Vercel AI SDK')[1]?.split('\n## ')[0];
    expect(section, 'the section').toBeDefined();
    const block = /```ts\n([\s\S]*?)```/.exec(section!)?.[1];
    const twin = readFileSync(join(ROOT, 'docs/examples/ai-sdk-readme.ts'), 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('// '))
      .join('\n')
      .replace("from '../../src/integrations/ai-sdk/index.js'", "from 'cachepoint/ai-sdk'");
    expect(block).toBe(twin);
    // a streamText tool loop of about 15 lines (imports and declarations aside)
    const code = block!.split('\n').filter((l) => l.trim() && !l.startsWith('import') && !l.startsWith('declare'));
    expect(code.length).toBeLessThanOrEqual(20);
  });
});

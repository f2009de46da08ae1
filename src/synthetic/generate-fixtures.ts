/**
 * Writes the committed fixture set (see fixtures.ts) into `fixtures/`.
 * Run from the repository root: `npx tsx src/synthetic/generate-fixtures.ts`.
 * Prints one line per file: requests, tool results, largest result, bytes.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_SPECS } from './fixtures.js';
import { formatTrace } from '../trace/format.js';
import { generateTrace } from './generate.js';

const dir = process.argv[2] ?? 'fixtures';
mkdirSync(dir, { recursive: true });
let total = 0;
for (const spec of FIXTURE_SPECS) {
  const events = generateTrace(spec.options);
  const text = formatTrace(events);
  writeFileSync(join(dir, spec.file), text);
  total += Buffer.byteLength(text);
  let requests = 0;
  let results = 0;
  let largest = 0;
  for (const e of events) {
    if (e.type === 'assistant') requests += 1;
    if (e.type === 'tool_results')
      for (const b of e.content) {
        if (b.type !== 'tool_result') continue;
        results += 1;
        largest = Math.max(largest, typeof b.content === 'string' ? b.content.length : JSON.stringify(b.content ?? '').length);
      }
  }
  console.log(
    `${spec.file.padEnd(22)} ${String(requests).padStart(4)} requests ${String(results).padStart(5)} results  largest ${String(largest).padStart(7)}  ${(Buffer.byteLength(text) / 1024).toFixed(0).padStart(6)} KiB`,
  );
}
console.log(`total ${(total / 1024 / 1024).toFixed(2)} MiB`);

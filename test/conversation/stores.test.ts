/** The conversation store contract on the in-process implementations: memory, file (Redis: stores-redis.test.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { describeConversationStore } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describeConversationStore('memory', async () => new MemoryConversationStore());
describeConversationStore('file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cachepoint-conv-'));
  dirs.push(dir);
  return new FileConversationStore({ dir });
});

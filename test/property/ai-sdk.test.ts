/**
 * The AI SDK door (cachepoint/ai-sdk middleware, the real `ai` and
 * `@ai-sdk/anthropic` packages, the local fake Messages API) under random
 * sessions (see ai-sdk.ts). `npm test` runs a dozen cases; `npm run fuzz` more.
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/property/ai-sdk.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { aiSdkScript, runAiSdkScript } from './ai-sdk.js';

const runs = Number(process.env.FUZZ_AI_SDK_RUNS ?? 12);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;

let server: FakeMessagesServer;
beforeAll(async () => {
  server = await startFakeServer({ now: () => 0 });
});
afterAll(async () => {
  await server.close();
});

describe('random sessions through the AI SDK middleware', () => {
  it(`every call prepared, accepted, the rendered bytes on the wire, <= 4 markers, no resync (${runs} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(aiSdkScript, (script) => runAiSdkScript(script, server)),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }), endOnFailure: true },
    );
  }, 600_000);
});

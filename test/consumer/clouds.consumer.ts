/**
 * The cloud clients: the packed tarball installed next to the latest supported
 * @anthropic-ai/sdk, `@anthropic-ai/bedrock-sdk` and `@anthropic-ai/vertex-sdk`
 * (which use that same SDK copy). The project typechecks (strict, skipLibCheck
 * off) and runs project/clouds.ts: `AnthropicBedrock` with a Bedrock id
 * through `prepare`, and `AnthropicVertex` with a Vertex id through a streaming
 * `Session`, each against the fake Messages API (a fetch undoes the cloud
 * envelope). Each request reaches the cloud route of the id it was given, and
 * every one after the first reads the cache. And the AWS SDK's own Converse
 * client (project/converse.ts): a plain Converse loop through `prepareConverse`,
 * both commands, against the fake server's Converse routes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, pack, ROOT, runReport, typeErrors, type Packed } from './project.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
/** The versions this test was written against (registry, 2026-12-02); bedrock-sdk 1.2.0 needs `@anthropic-ai/sdk >=1.16.0 <2`, vertex-sdk 1.1.4 `>=1.0.0 <2`. */
const SDK = '1.16.0';
const BEDROCK = '1.2.0';
const VERTEX = '1.1.4';

let packed: Packed;
beforeAll(() => {
  packed = pack('cachepoint-clouds-');
});
afterAll(() => packed?.remove());

interface Side {
  statuses: number[];
  paths: string[];
  models: string[];
  reads: number[];
}
interface Report {
  bedrock: Side;
  vertex: Side & { text: string; recorded: number };
}

describe('AnthropicBedrock and AnthropicVertex clients', () => {
  it('typecheck with cachepoint, and run a prepare loop (Bedrock) and a streaming Session (Vertex) that read the cache', () => {
    const dir = install(
      packed,
      'clouds',
      {
        '@anthropic-ai/sdk': SDK,
        '@anthropic-ai/bedrock-sdk': BEDROCK,
        '@anthropic-ai/vertex-sdk': VERTEX,
        '@types/node': pkg.devDependencies['@types/node']!,
      },
      ['clouds.ts'],
      ['node'],
    );
    expect(typeErrors(dir)).toEqual([]);
    const r = runReport<Report>(dir, 'clouds.ts');
    const bedrockId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    expect(r.bedrock.statuses).toEqual([200, 200, 200]);
    expect(r.bedrock.models).toEqual([bedrockId, bedrockId, bedrockId]);
    expect(r.bedrock.paths.every((p) => p.endsWith('/invoke'))).toBe(true);
    expect(r.bedrock.reads[0]).toBe(0);
    for (const read of r.bedrock.reads.slice(1)) expect(read).toBeGreaterThan(0);

    const vertexId = 'claude-sonnet-4-5@20250929';
    expect(r.vertex.statuses).toEqual([200, 200, 200]);
    expect(r.vertex.models).toEqual([vertexId, vertexId, vertexId]);
    expect(r.vertex.paths.every((p) => p.endsWith(':streamRawPredict'))).toBe(true);
    expect(r.vertex.text).toBe('Fixed.');
    expect(r.vertex.recorded).toBe(3);
    expect(r.vertex.reads[0]).toBe(0);
    for (const read of r.vertex.reads.slice(1)) expect(read).toBeGreaterThan(0);
  });

  it('a plain Converse loop on the AWS SDK (prepareConverse; ConverseCommand and ConverseStreamCommand) typechecks and reads the cache', () => {
    const dir = install(
      packed,
      'converse',
      {
        '@aws-sdk/client-bedrock-runtime': pkg.devDependencies['@aws-sdk/client-bedrock-runtime']!,
        '@smithy/node-http-handler': pkg.devDependencies['@smithy/node-http-handler']!,
        '@types/node': pkg.devDependencies['@types/node']!,
      },
      ['converse.ts'],
      ['node'],
      { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true },
    );
    expect(typeErrors(dir)).toEqual([]);
    const r = runReport<{ converse: ConverseSide; stream: ConverseSide }>(dir, 'converse.ts');
    for (const [side, path] of [
      [r.converse, 'converse'],
      [r.stream, 'converse-stream'],
    ] as const) {
      expect(side.statuses).toEqual([200, 200, 200]);
      expect(side.paths).toEqual([path, path, path]);
      for (const read of side.reads.slice(1)) expect(read).toBeGreaterThan(0);
      expect(side.recorded).toBe(3);
      // The user's document went out as the AWS client sends it (its bytes as base64 in the JSON body), every request.
      const document = { format: 'txt', name: 'test output', source: { bytes: Buffer.from('FAIL math.test.ts: expected 3, got -1').toString('base64') } };
      expect(side.documents).toEqual([1, 2, 3].map(() => ({ document })));
    }
  });
});

interface ConverseSide {
  statuses: number[];
  paths: string[];
  reads: number[];
  recorded: number;
  documents: unknown[];
}

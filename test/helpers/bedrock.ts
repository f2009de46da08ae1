/** The AWS Bedrock runtime client the tests point at the fake server, and scripts for it. */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';

/** The Bedrock runtime client speaks HTTP/2 by default; the fake server is HTTP/1.1 on loopback. One attempt. */
export function bedrockClient(endpoint: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
}

/** A fake-server script: one `Read` round per path, each opening with signed reasoning, then `answer`. */
export function reasoningReads(paths: readonly string[], answer: string): ScriptEntry[] {
  return [
    ...paths.map(
      (path, i): ScriptEntry => [
        { type: 'thinking', thinking: `Read ${path} next.`, signature: `EqQBCgIYAhIMs${i + 1}` },
        { type: 'tool_use', id: `tooluse_${i + 1}`, name: 'Read', input: { path } },
      ],
    ),
    [{ type: 'text', text: answer }],
  ];
}

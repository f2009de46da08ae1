/** The AWS Bedrock runtime client the tests point at the fake server. */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';

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

// The README's "With the Vercel AI SDK" block, compiled by `npm run typecheck`
// (test/integrations/ai-sdk/readme.test.ts keeps the two identical, import path aside).
import { anthropic } from '@ai-sdk/anthropic';
import { stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { cachepointMiddleware, createRecallTool } from '../../src/integrations/ai-sdk/index.js';

declare const messages: ModelMessage[]; // the conversation so far, ending with the user's message
declare function readFile(path: string): Promise<string>;
declare function liveView(): string;

const conversationId = 'chat-42';
const model = wrapLanguageModel({
  model: anthropic('claude-sonnet-4-6'),
  middleware: cachepointMiddleware({ conversationId, tail: liveView }), // tail: volatile, last, never cached
});
const result = streamText({
  model,
  instructions: 'You are a careful coding agent.', // ai 5 and 6: system
  messages,
  tools: {
    Read: tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }), execute: ({ path }) => readFile(path) }),
    recall: createRecallTool({ conversationId }), // reads back what was pruned or summarized
  },
  stopWhen: stepCountIs(20),
});
for await (const text of result.textStream) process.stdout.write(text);
messages.push(...(await result.responseMessages)); // ai 5 and 6: (await result.response).messages

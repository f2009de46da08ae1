/**
 * The OpenAI mappers as docs/providers.md shows them, compiled (strict,
 * skipLibCheck off) and run in a fresh project next to one version of the
 * `openai` SDK (see ai-sdk-versions.consumer.ts): what `toOpenAIResponses` /
 * `toOpenAIChat` return goes into that SDK's `create`, what it answers goes
 * back through `fromOpenAIResponse` / `fromOpenAIChatCompletion`. A 2-turn
 * tool loop on each API against cachepoint's fake server; one JSON line out.
 */
import OpenAI from 'openai';
import {
  appendResponse,
  appendToolResults,
  createTimeline,
  fromOpenAIChatCompletion,
  fromOpenAIResponse,
  OPENAI_MODELS,
  render,
  startTurn,
  toOpenAIChat,
  toOpenAIResponses,
  type TimelineState,
} from 'cachepoint';
import { startFakeServer, type ScriptEntry } from 'cachepoint/testing';

const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions and explain what you changed. '.repeat(150)}`;
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(150)}`;

function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= 2; t++) {
    for (let r = 1; r <= 2; r++) out.push([{ type: 'tool_use', name: 'Read', input: { path: `src/m${t}${r}.ts` } }]);
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out;
}

async function loop(api: 'responses' | 'chat') {
  const server = await startFakeServer({ script: script() });
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
  const profile = OPENAI_MODELS['gpt-5.4']!;
  let state: TimelineState = createTimeline({
    model: profile.id,
    instructions: [SYSTEM],
    tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  });
  const reads: number[] = [];
  let now = 0;
  for (let t = 1; t <= 2; t++) {
    state = startTurn(state, `Task ${t}: read the files.`);
    for (;;) {
      const rendered = render(state, { profile, now });
      now += 5_000;
      let blocks: ReturnType<typeof fromOpenAIResponse>;
      if (api === 'responses') {
        const response = await openai.responses.create(toOpenAIResponses(rendered, { promptCacheKey: 'conversation-42', retention: '24h' }));
        reads.push(response.usage?.input_tokens_details.cached_tokens ?? -1);
        blocks = fromOpenAIResponse(response);
      } else {
        const completion = await openai.chat.completions.create(toOpenAIChat(rendered, { promptCacheKey: 'conversation-42' }));
        reads.push(completion.usage?.prompt_tokens_details?.cached_tokens ?? -1);
        blocks = fromOpenAIChatCompletion(completion);
      }
      state = appendResponse(rendered.state, blocks);
      const calls = blocks.filter((b) => b.type === 'tool_use');
      if (calls.length === 0) break;
      state = appendToolResults(
        state,
        calls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: file(String((c.input as { path?: unknown }).path)) })),
      );
    }
  }
  const statuses = server.requests.map((r) => r.status);
  await server.close();
  return { requests: statuses.length, statuses, reads };
}

console.log(JSON.stringify({ responses: await loop('responses'), chat: await loop('chat') }));

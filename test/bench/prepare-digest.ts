/**
 * One digest of everything `prepare` returns (params, plan, headers) over every fixture, both policies, and each
 * way a plain loop passes its envelope and history (test/bench/prepare.ts's loop kinds), plus the Session path's
 * replay: a perf change to prepare (or to what it calls) that claims "no output change" shows the same digest
 * before and after. Not a test (nothing to compare with in the repository): run it on both sides.
 *
 *     npx tsx test/bench/prepare-digest.ts          # prints the digest (and one per fixture with -v)
 *
 * Loop kinds: `kept` (one messages array pushed to, the same system/tools objects), `remapped` (new tool and
 * system block objects around the same values per request), `rebuilt` (system, tools and the whole messages array
 * through a JSON round trip per request: every object and string new), `copied` (a new messages array per request,
 * the same message objects, kept envelope: what test/helpers/plain-loop.ts sends). Hide events go to the next
 * request's `options.hide`, deferred, as the differential test passes them.
 */
import { createHash } from 'node:crypto';
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type HideRequest } from '../../src/conversation/prepare.js';
import { stripCacheControl } from '../../src/providers/anthropic.js';
import { replay } from '../../src/replay/replay.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { fixtureTexts, isMain, parseFixture } from './util.js';

type Kind = 'kept' | 'remapped' | 'rebuilt' | 'copied';
const KINDS: readonly Kind[] = ['kept', 'remapped', 'rebuilt', 'copied'];
const POLICIES = ['conservative', 'economy'] as const;

function withoutDuration(b: object): object {
  if (!('duration_ms' in b)) return b;
  const { duration_ms: _d, ...rest } = b as { duration_ms: number };
  return rest;
}

const fresh = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

async function loop(events: readonly TraceEvent[], session: readonly MessageCreateParamsNonStreaming[], kind: Kind, policy: string, hash: (s: string) => void) {
  const store = new MemoryConversationStore();
  const tokens = new BlockTokenCache();
  const messages: MessageParam[] = [];
  let tail: unknown;
  let lastAt = 0;
  let hide: HideRequest[] = [];
  let envelope: Pick<MessageCreateParamsNonStreaming, 'system' | 'tools'> | undefined;
  let k = 0;
  for (const e of events) {
    if (e.type === 'envelope') envelope = undefined;
    else if (e.type === 'hide') hide.push({ ...(e.path ? { path: e.path } : { toolUseId: e.tool_use_id! }), ...(e.note ? { note: e.note } : {}), defer: true });
    else if (e.type === 'user') messages.push({ role: 'user', content: e.content as MessageParam['content'] });
    else if (e.type === 'tail') tail = e.content;
    else if (e.type === 'tool_results') {
      const results = e.content.filter((b) => b.type === 'tool_result').map((b) => withoutDuration(b) as ToolResultBlockParam);
      messages.push({ role: 'user', content: [...results, ...(e.content.filter((b) => b.type === 'text') as TextBlockParam[])] });
    } else if (e.type === 'assistant') {
      const want = session[k]!;
      if (!envelope) {
        const { system, tools } = stripCacheControl({ system: want.system, tools: want.tools });
        envelope = { ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
      }
      const env =
        kind === 'rebuilt'
          ? fresh(envelope)
          : kind === 'remapped'
            ? Object.fromEntries(Object.entries(envelope).map(([key, v]) => [key, Array.isArray(v) ? v.map((x: object) => ({ ...x })) : v]))
            : envelope;
      const history = kind === 'rebuilt' ? fresh(messages) : kind === 'copied' ? [...messages] : messages;
      const body = { model: want.model, max_tokens: 2048, ...env, messages: history };
      const { params, plan, headers } = await prepare(body, {
        conversationId: 'digest',
        store,
        now: lastAt,
        render: { policy: policy as 'conservative', tokens },
        ...(tail !== undefined ? { tail: tail as never } : {}),
        ...(hide.length > 0 ? { hide } : {}),
      });
      hash(JSON.stringify(params));
      hash(JSON.stringify(plan));
      hash(JSON.stringify(headers));
      hide = [];
      messages.push({ role: 'assistant', content: e.content as MessageParam['content'] });
      k++;
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
}

/** The digest (16 hex digits) and one per fixture. */
export async function prepareDigest(): Promise<{ digest: string; perFixture: Record<string, string> }> {
  const all = createHash('sha256');
  const perFixture: Record<string, string> = {};
  for (const { name, text } of fixtureTexts()) {
    const one = createHash('sha256');
    const hash = (s: string) => {
      all.update(s);
      one.update(s);
    };
    for (const policy of POLICIES) {
      const session: MessageCreateParamsNonStreaming[] = [];
      for await (const r of replay(parseFixture(text, name), { extras: { max_tokens: 2048 }, policy })) {
        session.push(r.request);
        hash(JSON.stringify(r.request));
      }
      for (const kind of KINDS) await loop(parseFixture(text, name), session, kind, policy, hash);
    }
    perFixture[name] = one.digest('hex').slice(0, 16);
  }
  return { digest: all.digest('hex').slice(0, 16), perFixture };
}

if (isMain(import.meta.url)) {
  const { digest, perFixture } = await prepareDigest();
  if (process.argv.includes('-v')) for (const [name, d] of Object.entries(perFixture)) console.log(`${d}  ${name}`);
  console.log(digest);
}

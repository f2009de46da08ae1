/**
 * The LLM summarizer, with cheap compaction: when given the warm prefix (the
 * last request's bytes up to its last written cache point), it sends exactly
 * those bytes — tools, system, messages, markers — and appends only the
 * summarize instruction, so the whole history is a cache read (0.1× input)
 * instead of a re-send. Without a prefix (or one that does not reach the
 * turns to summarize) it sends a compact transcript of those turns.
 *
 * It never throws for API trouble: on an error, a timeout, an abort or an
 * empty answer it returns the fallback summarizer's output (extractive by
 * default) with `fallback` saying why, so compaction always completes.
 */
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  MessagesCreateClient,
  TextBlockParam,
} from '../providers/anthropic-types.js';
import { InvalidOptionError } from '../errors.js';
import { DEFAULT_MODEL, resolveProfile, type ModelProfile } from '../models/profiles.js';
import { priceUsage } from '../models/pricing.js';
import { turnBlocks } from '../timeline/paths.js';
import { extractiveSummarizer } from './extractive.js';
import { clip, resultText } from './turn-digest.js';
import type { AsyncSummarizer, Summarizer, SummaryInput, SummaryOutput, SummaryUsage } from './types.js';

/** Options of {@link llmSummarizer}. */
export interface LlmSummarizerOptions {
  /** Any `@anthropic-ai/sdk` version's `Anthropic` (or Bedrock/Vertex) client, or anything with `messages.create`. */
  readonly client: MessagesCreateClient;
  /**
   * Model for transcript mode (default claude-sonnet-4-6). With a warm prefix
   * the prefix's own model is used: a cache entry belongs to one model.
   */
  readonly model?: string;
  /** A ceiling on the summary's output tokens, below the input's `maxTokens` if lower. */
  readonly maxTokens?: number;
  /** Give up and fall back after this long (default 60 s). */
  readonly timeoutMs?: number;
  /** SDK retries per call (default 0: a retry waits, and the fallback is always at hand). */
  readonly maxRetries?: number;
  /** Writes the summary when the model call fails (default: the extractive summarizer). */
  readonly fallback?: Summarizer;
  /** Extra model profiles for pricing. */
  readonly profiles?: Readonly<Record<string, ModelProfile>>;
  /** Characters of transcript sent in transcript mode (default 200,000). */
  readonly transcriptChars?: number;
}

// IMPLEMENTATION

function quoteStart(input: SummaryInput, turn: number): string {
  const t = input.turns.find((x) => x.index === turn);
  const text = t?.user.map((b) => (b.param.type === 'text' ? b.param.text : '')).join(' ') ?? '';
  return text.trim() === '' ? '' : ` (it begins "${clip(text, 80)}")`;
}

/** The summarize instruction, self-locating: it names the turns by number and by their opening words. */
export function summarizeInstruction(input: SummaryInput, maxTokens: number, warm: boolean): string {
  const range =
    input.fromTurn === input.toTurn
      ? `turn ${input.fromTurn}${quoteStart(input, input.fromTurn)}`
      : `turns ${input.fromTurn}${quoteStart(input, input.fromTurn)} to ${input.toTurn}${quoteStart(input, input.toTurn)}`;
  const where = warm ? 'of the conversation above (a turn starts with a user request)' : 'of the transcript above';
  return [
    `Summarize ${range} ${where}. The summary will replace those turns in your context, so keep what is needed to continue the work:`,
    "the user's requests, decisions and their reasons, files and paths touched, commands run and their outcomes, errors and how they were resolved, and open questions.",
    'The original blocks stay readable with the recall tool; cite a path such as turns/3/rounds/2/results/toolu_01 only where the exact original may be needed.',
    `Write plain text, under ${maxTokens} tokens. Do not call tools; answer with the summary only.`,
  ].join(' ');
}

/** Stripped of cache markers, for comparing blocks across requests. */
function bare(block: unknown): string {
  return JSON.stringify(block, (k, v) => (k === 'cache_control' ? undefined : v));
}

/** Whether the prefix holds the end of the range: only then does it carry the history to summarize. */
function reaches(prefix: MessageCreateParamsNonStreaming, input: SummaryInput): boolean {
  const last = input.turns.find((t) => t.index === input.toTurn) ?? input.turns.at(-1);
  if (!last) return false;
  const wanted = new Set([...turnBlocks(last)].map((b) => bare(b.param)));
  return prefix.messages.some((m) => typeof m.content !== 'string' && m.content.some((b) => wanted.has(bare(b))));
}

/** The prefix's bytes plus the instruction: appended to its last user message, or as a new user message. */
function warmRequest(prefix: MessageCreateParamsNonStreaming, instruction: string, maxTokens: number): MessageCreateParamsNonStreaming {
  const text: TextBlockParam = { type: 'text', text: instruction };
  const last = prefix.messages.at(-1);
  let messages: MessageParam[];
  if (last?.role === 'user') {
    const content: ContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }, text] : [...last.content, text];
    messages = [...prefix.messages.slice(0, -1), { ...last, content }];
  } else {
    messages = [...prefix.messages, { role: 'user', content: [text] }];
  }
  // Thinking (part of the cache key on some models) stays as it was; its budget comes on top of the summary's.
  const budget = prefix.thinking?.type === 'enabled' ? prefix.thinking.budget_tokens : 0;
  return { ...prefix, max_tokens: maxTokens + budget, messages };
}

function transcript(input: SummaryInput, maxChars: number): string {
  const blocks = input.turns.reduce((n, t) => n + [...turnBlocks(t)].length, 0);
  // Every block gets a fair share of the budget; long tool output is what gets cut.
  const per = Math.max(200, Math.floor(maxChars / Math.max(1, blocks)));
  const lines: string[] = [];
  if (input.previous) lines.push(`<earlier-summary turns="${input.previous.fromTurn}-${input.previous.toTurn}">\n${input.previous.text}\n</earlier-summary>`);
  for (const turn of input.turns) {
    lines.push(`<turn n="${turn.index}">`);
    for (const b of turnBlocks(turn)) {
      const p = b.param;
      const role = b.path.includes('/user/') ? 'USER' : b.path.includes('/results/') ? 'RESULT' : 'ASSISTANT';
      switch (p.type) {
        case 'text':
          lines.push(`${role}: ${clip(p.text, per)}`);
          break;
        case 'tool_use':
          lines.push(`CALL ${p.name} ${clip(JSON.stringify(p.input ?? {}), per)} [${b.path}]`);
          break;
        case 'tool_result':
          lines.push(`RESULT${p.is_error ? ' (error)' : ''} [${b.path}]: ${clip(resultText(p.content), per)}`);
          break;
        case 'thinking':
        case 'redacted_thinking':
          break;
        default:
          lines.push(`${role}: [${p.type}]`);
      }
    }
    lines.push('</turn>');
  }
  return lines.join('\n');
}

function transcriptRequest(input: SummaryInput, model: string, maxTokens: number, maxChars: number): MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: maxTokens,
    system: [{ type: 'text', text: "You summarize an AI agent's working session so it can continue with less context." }],
    messages: [{ role: 'user', content: [{ type: 'text', text: `${transcript(input, maxChars)}\n\n${summarizeInstruction(input, maxTokens, false)}` }] }],
  };
}

function usageOf(message: Message): SummaryUsage {
  const u = message.usage;
  return {
    input_tokens: u.input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    output_tokens: u.output_tokens,
  };
}

function describeError(e: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  if (e !== null && typeof e === 'object') {
    const err = e as { status?: unknown; name?: unknown; message?: unknown; error?: { error?: { message?: unknown } } };
    if (err.name === 'APIUserAbortError' || err.name === 'AbortError') return 'aborted by the caller';
    // The SDK's APIError keeps the API's JSON body in `error`; its own message repeats status and body.
    const apiMessage = err.error?.error?.message;
    if (typeof err.status === 'number') return `error ${err.status}: ${clip(String(apiMessage ?? err.message ?? ''), 200)}`;
    return `error: ${clip(String(err.message ?? e), 200)}`;
  }
  return `error: ${String(e)}`;
}

/**
 * The LLM summarizer.
 *
 * @example
 * const summarizer = llmSummarizer({ client: new Anthropic(), timeoutMs: 30_000 });
 * const out = await summarizer.summarize({ fromTurn: 1, toTurn: 6, turns, maxTokens: 2000, warmPrefix: cutToWarmPrefix(lastParams) });
 * out.text; out.cost; out.fallback; // fallback is set when the extractive summary was used instead
 */
export function llmSummarizer(options: LlmSummarizerOptions): AsyncSummarizer {
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (!(timeoutMs > 0)) throw new InvalidOptionError('timeoutMs', `must be positive, got ${timeoutMs}`);
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0)) {
    throw new InvalidOptionError('maxTokens', `must be a positive integer, got ${options.maxTokens}`);
  }
  const fallback = options.fallback ?? extractiveSummarizer();
  const { client } = options;

  async function fall(input: SummaryInput, reason: string, spent?: { usage: SummaryUsage; cost?: number }): Promise<SummaryOutput> {
    const out = await fallback.summarize(input);
    return { ...out, ...(spent ? { usage: spent.usage, ...(spent.cost === undefined ? {} : { cost: spent.cost }) } : {}), fallback: reason };
  }

  return {
    name: 'llm',
    async summarize(input, signal) {
      const maxTokens = Math.min(input.maxTokens, options.maxTokens ?? Number.POSITIVE_INFINITY);
      const warm = input.warmPrefix !== undefined && reaches(input.warmPrefix, input);
      const params = warm
        ? warmRequest(input.warmPrefix!, summarizeInstruction(input, maxTokens, true), maxTokens)
        : transcriptRequest(input, options.model ?? DEFAULT_MODEL, maxTokens, options.transcriptChars ?? 200_000);
      const mode = warm ? 'warm' : 'transcript';

      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = (): void => controller.abort();
      if (signal?.aborted) controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let message: Message;
      try {
        message = (await client.messages.create(params as never, { signal: controller.signal, maxRetries: options.maxRetries ?? 0 } as never)) as Message;
      } catch (e) {
        return { ...(await fall(input, describeError(e, timedOut, timeoutMs))), mode };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }

      let cost: number | undefined;
      try {
        const price = priceUsage(resolveProfile(params.model, options.profiles).prices, message.usage);
        cost = price.total + price.output;
      } catch {
        cost = undefined; // A model without a profile: the summary is still good, only unpriced.
      }
      const usage = usageOf(message);
      const text = message.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('\n')
        .trim();
      if (text === '') {
        const spent = cost === undefined ? { usage } : { usage, cost };
        return { ...(await fall(input, `empty answer (stop_reason ${message.stop_reason})`, spent)), mode };
      }
      return { text, by: `llm:${message.model}`, usage, ...(cost === undefined ? {} : { cost }), mode };
    },
  };
}

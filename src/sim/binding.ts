/**
 * Preserved thinking, as the API checks it (models whose profile has `bindsThinking`; sources in
 * docs/models.md, "Preserved thinking"): a thinking or redacted_thinking block that comes back must have
 * the prefix it was produced under: top-level `system`, `tools`, and all message content before it
 * (compared without cache markers; here as JSON with sorted keys and no null fields). The first block
 * whose prefix differs, and every later thinking block, are invalid. Shared by the simulator (which
 * infers where a block was produced: the request before the one it first comes back in) and the fake
 * server (which signs the blocks it answers).
 */
import type { MessageCreateParamsBase } from '../providers/anthropic-types.js';

/** The API's 400 for a thinking block whose prefix changed (its path: `messages.{i}.content.{j}`). */
export function boundElsewhere(path: string, type: string): string {
  return (
    `${path}: Invalid \`signature\` in \`${type}\` block. The block is bound to a different conversation. ` +
    'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
  );
}

/** JSON with sorted keys, without cache markers and null fields: what the prefix check compares. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => k !== 'cache_control' && o[k] !== null && o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export function blocksOf(content: unknown): readonly unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** The prefix text before every message, built once per request: head (system, tools), then each message. */
function head(params: MessageCreateParamsBase): string {
  return `system:${canonical(blocksOf(params.system))}\ntools:${canonical(params.tools ?? [])}`;
}

/**
 * A running digest of the prefix: `add` appends text, `now` is the digest of everything added so far.
 * Two FNV-1a 32-bit lanes with different offsets (64 bits, not cryptographic: this models the API's check
 * for tests and simulation, it protects nothing). Incremental, so a request is digested in one pass.
 */
export class Prefix {
  #a = 0x811c9dc5;
  #b = 0x01000193 ^ 0x5bd1e995;
  add(text: string): void {
    let a = this.#a;
    let b = this.#b;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193 + 2);
    }
    this.#a = a;
    this.#b = b;
  }
  now(): string {
    return (this.#a >>> 0).toString(16).padStart(8, '0') + (this.#b >>> 0).toString(16).padStart(8, '0');
  }
}

export function prefixOf(params: MessageCreateParamsBase): Prefix {
  const p = new Prefix();
  p.add(head(params));
  return p;
}

export function isThinkingBlock(b: unknown): b is { type: 'thinking' | 'redacted_thinking'; signature?: string; data?: string } {
  const type = (b as { type?: unknown } | null)?.type;
  return type === 'thinking' || type === 'redacted_thinking';
}

/** The prefix of a response's first block: the whole request, then the start of the assistant message. */
export function requestPrefix(params: MessageCreateParamsBase): Prefix {
  const prefix = prefixOf(params);
  for (const m of params.messages) {
    prefix.add(`\n${m.role}:`);
    for (const b of blocksOf(m.content)) prefix.add(`\t${canonical(b)}`);
  }
  prefix.add('\nassistant:');
  return prefix;
}

/**
 * The same check over requests whose thinking blocks carry signatures of their own (a replayed trace):
 * {@link ThinkingLedger.record} notes the prefix each response's thinking was produced under (keyed by its
 * signature, or data), {@link ThinkingLedger.check} finds the first block sent back with a different one.
 * A block the ledger never saw is not checked.
 */
export class ThinkingLedger {
  readonly #bound = new Map<string, string>();

  /** The thinking of `content`, the response to `params`, is bound to its prefix there. */
  record(params: MessageCreateParamsBase, content: readonly unknown[]): void {
    const prefix = requestPrefix(params);
    for (const b of content) {
      if (isThinkingBlock(b)) {
        const key = ledgerKey(b);
        if (key !== undefined) this.#bound.set(key, prefix.now());
      }
      prefix.add(`\t${canonical(b)}`);
    }
  }

  /** Where the first thinking block whose prefix changed is (`messages.{i}.content.{j}`), or undefined. */
  check(params: MessageCreateParamsBase): string | undefined {
    return firstChanged(params, (key) => this.#bound.get(key))?.path;
  }
}

/**
 * Walks a request with its running prefix: the first thinking block whose prefix is not the one `want`
 * gives for it (by its key; `blocks` and `j` place it in its message), or undefined.
 */
function firstChanged(
  params: MessageCreateParamsBase,
  want: (key: string, blocks: readonly unknown[], j: number, now: string) => string | undefined,
): { path: string; type: string } | undefined {
  const prefix = prefixOf(params);
  for (let i = 0; i < params.messages.length; i++) {
    const m = params.messages[i]!;
    prefix.add(`\n${m.role}:`);
    const blocks = blocksOf(m.content);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (isThinkingBlock(b)) {
        const key = ledgerKey(b);
        const now = prefix.now();
        const wanted = key === undefined ? undefined : want(key, blocks, j, now);
        if (wanted !== undefined && wanted !== now) return { path: `messages.${i}.content.${j}`, type: b.type };
      }
      prefix.add(`\t${canonical(b)}`);
    }
  }
  return undefined;
}

export function ledgerKey(b: { type: string; signature?: string; data?: string }): string | undefined {
  const s = b.type === 'thinking' ? b.signature : b.data;
  return typeof s === 'string' ? `${b.type}:${s}` : undefined;
}

/**
 * The simulator's check: a block the ledger has not seen was produced by one of the recent requests (the
 * simulator serves any number of conversations, so not necessarily the one just before), after that
 * request's content and the blocks before it in its own message: the one whose prefix matches, else the
 * latest (then the block is refused). Returns the API's 400 text for the first thinking block whose prefix
 * changed, or undefined.
 */
export class InferredBinding {
  readonly #bound = new Map<string, string>();
  /** The latest requests that produced a response, newest last. */
  readonly #recent: MessageCreateParamsBase[] = [];

  check(params: MessageCreateParamsBase): string | undefined {
    const changed = firstChanged(params, (key, blocks, j, now) => {
      let want = this.#bound.get(key);
      if (want === undefined) {
        // First seen: with no request before it, produced under this prefix (an imported history).
        want = now;
        for (let r = this.#recent.length - 1; r >= 0; r--) {
          const produced = requestPrefix(this.#recent[r]!);
          for (let k = 0; k < j; k++) produced.add(`\t${canonical(blocks[k])}`);
          const digest = produced.now();
          if (r === this.#recent.length - 1) want = digest;
          if (digest === now) {
            want = digest;
            break;
          }
        }
        this.#bound.set(key, want);
      }
      return want;
    });
    return changed && boundElsewhere(changed.path, changed.type);
  }

  /** The request was accepted and answered: blocks first seen later may be its response's. */
  sent(params: MessageCreateParamsBase): void {
    this.#recent.push(params);
    if (this.#recent.length > RECENT) this.#recent.shift();
  }

  reset(): void {
    this.#bound.clear();
    this.#recent.length = 0;
  }
}

/** How many recent requests a first-seen thinking block may come from (interleaved conversations). */
const RECENT = 8;

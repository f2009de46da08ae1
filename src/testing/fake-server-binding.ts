/**
 * Preserved thinking in the fake server (models whose profile has
 * `bindsThinking`): every thinking or redacted_thinking block the server
 * answers carries, in its signature (or data), a digest of its prefix: the
 * top-level `system`, `tools` and all message content before the block, cache
 * markers left out (docs/models.md, "Preserved thinking", has the sources).
 * When such a block comes back, the digest of its prefix in that request must
 * match; the first block that does not, and every later thinking block, are
 * invalid: the request is refused with the API's 400 ("… The block is bound to
 * a different conversation …"), or, with `thinking.block_binding.
 * prefix_mismatch_behavior: "drop_block"` and the beta header, the blocks are
 * dropped and listed in the response's `input_transformations`.
 *
 * A block left out between kept ones, or moved, changes the prefix of the
 * later ones, so it fails the same check (as on the API).
 */
import type { Message, MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { resolveProfile } from '../models/profiles.js';
import { THINKING_BINDING_BETA } from '../providers/anthropic.js';
import { blocksOf, boundElsewhere, canonical, isThinkingBlock, prefixOf, requestPrefix } from '../sim/binding.js';
import { HttpError } from './fake-server-http.js';

/** The `anthropic-beta` value that lets a request choose `drop_block`. */
export { THINKING_BINDING_BETA };

const BOUND = '~bound:';

/** Whether the fake server binds thinking for this model (its profile's `bindsThinking`). */
export function bindsThinking(model: unknown): boolean {
  if (typeof model !== 'string') return false;
  try {
    return resolveProfile(model).bindsThinking === true;
  } catch {
    return false;
  }
}

/** A thinking block the prefix check invalidated: where it is in the request (`messages.{i}.content.{j}`). */
export interface DroppedThinking {
  readonly type: 'thinking_dropped';
  readonly path: string;
  readonly reason: 'prefix_binding_mismatch';
}

/**
 * Checks the thinking blocks of a request for a binding model. Throws the API's 400 for the first
 * block whose prefix changed, unless the request chose `drop_block` (with the beta header): then
 * returns the blocks dropped (that one and every later thinking block).
 */
export function checkBinding(params: MessageCreateParamsBase, betaHeader: string | string[] | undefined): readonly DroppedThinking[] {
  if (!bindsThinking(params.model)) return [];
  const binding = (params.thinking as { block_binding?: { prefix_mismatch_behavior?: unknown } } | undefined)?.block_binding;
  const behavior = binding?.prefix_mismatch_behavior;
  const betas = (Array.isArray(betaHeader) ? betaHeader.join(',') : (betaHeader ?? '')).split(',').map((s) => s.trim());
  if (behavior !== undefined && !betas.includes(THINKING_BINDING_BETA)) {
    // The API's words (preserved-thinking page, read 2026-12-01): the field without the beta header is a 400 whose
    // message ends `block_binding: Extra inputs are not permitted`.
    throw new HttpError(400, 'invalid_request_error', 'thinking.block_binding: Extra inputs are not permitted');
  }
  const drop = behavior === 'drop_block';
  const prefix = prefixOf(params);
  const dropped: DroppedThinking[] = [];
  let invalid = false;
  params.messages.forEach((m, i) => {
    prefix.add(`\n${m.role}:`);
    const blocks = blocksOf(m.content);
    blocks.forEach((b, j) => {
      if (isThinkingBlock(b)) {
        const want = boundDigest(b);
        if (invalid || (want !== undefined && want !== prefix.now())) {
          if (!drop) {
            // Without the beta header the API adds that the setting needs it.
            const hint = betas.includes(THINKING_BINDING_BETA)
              ? ''
              : ` That setting requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`;
            throw new HttpError(400, 'invalid_request_error', boundElsewhere(`messages.${i}.content.${j}`, b.type) + hint);
          }
          invalid = true;
          dropped.push({ type: 'thinking_dropped', path: `messages.${i}.content.${j}`, reason: 'prefix_binding_mismatch' });
          // A dropped block is not part of the later blocks' prefix.
          return;
        }
      }
      prefix.add(`\t${canonical(b)}`);
    });
  });
  return dropped;
}

/**
 * The message with each thinking block bound to its prefix (models that bind thinking): the request's
 * prefix and the response's blocks before it, as a digest after `~bound:` in its signature (data).
 */
export function bindResponse(params: MessageCreateParamsBase, message: Message): Message {
  if (!bindsThinking(params.model) || !message.content.some(isThinkingBlock)) return message;
  const prefix = requestPrefix(params);
  const content = message.content.map((b) => {
    let out: unknown = b;
    if (b.type === 'thinking') out = { ...b, signature: `${b.signature}${BOUND}${prefix.now()}` };
    else if (b.type === 'redacted_thinking') out = { ...b, data: `${b.data}${BOUND}${prefix.now()}` };
    prefix.add(`\t${canonical(out)}`);
    return out;
  }) as Message['content'];
  return { ...message, content };
}

function boundDigest(b: { type: string; signature?: string; data?: string }): string | undefined {
  const s = b.type === 'thinking' ? b.signature : b.data;
  if (typeof s !== 'string') return undefined;
  const at = s.lastIndexOf(BOUND);
  return at < 0 ? undefined : s.slice(at + BOUND.length);
}

export { ThinkingLedger } from '../sim/binding.js';

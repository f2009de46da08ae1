/** The context every pass receives: the model profile, the token cache, the clock. */
import { resolveProfile } from '../models/profiles.js';
import { BlockTokenCache } from '../tokens/counter.js';
import type { TimelineState } from '../timeline/types.js';
import type { PassContext } from './hide.js';
import type { RenderOptions } from './types.js';

let sharedTokens: BlockTokenCache | undefined;

/** The process-wide token cache used when no `tokens` option is given. */
export function defaultTokenCache(): BlockTokenCache {
  return (sharedTokens ??= new BlockTokenCache());
}

/** Resolves the pass context from the state and the options. */
export function passContext(state: TimelineState, options: RenderOptions): PassContext {
  return {
    profile: options.profile ?? resolveProfile(state.model, options.profiles),
    tokens: options.tokens ?? defaultTokenCache(),
    now: options.now ?? Date.now(),
  };
}

/** The context every pass receives: the model profile, the token cache, the clock, the resolved options. */
import { resolveProfile } from '../models/profiles.js';
import type { TimelineState } from '../timeline/types.js';
import type { PassContext } from './hide.js';
import { resolveRenderOptions, type ExtraOptionChecks, type ResolvedRenderOptions } from './options.js';
import type { RenderOptions } from './types.js';

export { defaultTokenCache } from './options.js';

/**
 * Validates the options (once) and resolves the pass context from the state and them.
 *
 * @throws {InvalidOptionError} for an option the engine cannot honour
 */
export function passContext(state: TimelineState, options: RenderOptions = {}, extra?: ExtraOptionChecks): PassContext {
  return contextOf(state, resolveRenderOptions(options, extra));
}

/** The pass context of already resolved options (no second clock read, no second validation). */
export function contextOf(state: TimelineState, options: ResolvedRenderOptions): PassContext {
  return {
    profile: options.profile ?? resolveProfile(state.model, options.profiles),
    tokens: options.tokens,
    now: options.now,
    options,
  };
}

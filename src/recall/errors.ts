/** Errors of the payload stores. */
import { CachepointError } from '../errors.js';

/** A payload store failed to read or write (`io`) or found a file it cannot read back (`corrupt`). `cause` holds the fs error. */
export class PayloadStoreError extends CachepointError {
  readonly path: string;
  readonly reason: 'io' | 'corrupt' | 'unsafe_path';
  constructor(path: string, reason: PayloadStoreError['reason'], message: string, options?: { cause?: unknown }) {
    super('cache_store', `${JSON.stringify(path)}: ${message}`, options);
    this.path = path;
    this.reason = reason;
  }
}

/**
 * A path a store refuses as a key: absolute, with `.`/`..` or empty segments,
 * backslashes, NUL or other control characters. Logical paths are relative and
 * `/`-separated (`turns/3/rounds/2/results/toolu_01`), so none of these can
 * come from the timeline; refusing them keeps a file store inside its folder.
 */
export class UnsafePathError extends PayloadStoreError {
  /** Which rule the path broke. */
  readonly rule: 'empty' | 'absolute' | 'dot_segment' | 'empty_segment' | 'backslash' | 'control_char' | 'too_long';
  constructor(path: string, rule: UnsafePathError['rule'], message: string) {
    super(path, 'unsafe_path', `${message}. A path is relative, '/'-separated, like "turns/3/rounds/2/results/toolu_01"`);
    this.rule = rule;
  }
}

/**
 * A command's flags, parsed with node:util parseArgs (no dependency). A flag the
 * command does not know is a usage error that names it and the nearest known
 * flag (`--polcy: unknown option (did you mean --policy?)`), as the library's
 * option objects do: parseArgs' own text names no near flag and suggests quoting
 * it as a positional, which a misspelled flag never is.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { nearestKey } from '../internal/option-keys.js';
import { UsageError } from './output.js';

type Flags = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` (positionals allowed) against `options`.
 *
 * @example
 * const { values, positionals } = parseFlags('render', argv, { json: { type: 'boolean' } });
 */
export function parseFlags<const O extends Flags>(
  command: string,
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>> {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (err) {
    const flag =
      (err as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']+)'/.exec((err as Error).message)?.[1] : undefined;
    // Another wording (a later Node) keeps parseArgs' own message.
    if (flag === undefined) throw err;
    const near = flag.startsWith('--') ? nearestKey(flag.slice(2), Object.keys(options)) : undefined;
    throw new UsageError(`${flag}: unknown option${near ? ` (did you mean --${near}?)` : ''}; see cachepoint ${command} --help`);
  }
}

/** Payloads for the store tests: every shape a forgotten block can have. */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';

export const TEXT: ContentBlockParam = {
  type: 'text',
  text: 'Plan: read the retry config, then fix the backoff. ✓ naïve “quotes” \u2028 and a lone surrogate \ud800.',
};

export const RESULT_WITH_PARTS: ContentBlockParam = {
  type: 'tool_result',
  tool_use_id: 'toolu_01AbC',
  content: [
    { type: 'text', text: 'export const retries = 3;\nexport const backoffMs = 250;\n' },
    {
      type: 'image',
      source: {
        type: 'base64',
        media_type: 'image/png',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      },
    },
    { type: 'text', text: '// end of file' },
  ],
};

export const ERROR_RESULT: ContentBlockParam = { type: 'tool_result', tool_use_id: 'toolu_02', content: 'ENOENT: no such file src/missing.ts', is_error: true };

export const TOOL_USE: ContentBlockParam = {
  type: 'tool_use',
  id: 'toolu_03',
  name: 'Edit',
  // Key order, nested arrays, numbers and escapes exactly as the model produced them.
  input: { path: 'src/retry.ts', z: 1, a: [1.5, -0, 1e21, null, { '': 'x' }], old: 'const backoffMs = 250;', new: 'const backoffMs = 500;\t// "slower"' },
};

export const SAMPLES: readonly (readonly [string, ContentBlockParam])[] = [
  ['turns/1/user/0', TEXT],
  ['turns/2/rounds/1/results/toolu_01AbC', RESULT_WITH_PARTS],
  ['turns/2/rounds/2/results/toolu_02', ERROR_RESULT],
  ['turns/10/rounds/1/calls/toolu_03', TOOL_USE],
];

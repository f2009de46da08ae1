/**
 * Vitest snapshot serializer for renders: `expect(rendered).toMatchSnapshot()`
 * records the readable form of {@link formatRendered} instead of a JSON dump.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { snapshotSerializers: ['cachepoint/testing/serializer'] } });
 * // or in a test file: expect.addSnapshotSerializer(renderSerializer)
 */
import { formatRendered, isRendered } from './snapshot.js';

export const renderSerializer = {
  test: (value: unknown): boolean => isRendered(value),
  serialize: (value: unknown): string => formatRendered(value as Parameters<typeof formatRendered>[0]),
};

export default renderSerializer;

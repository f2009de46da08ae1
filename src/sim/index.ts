/** The provider cache simulator, the peer baselines, the ideal bound and their reports. */
export { CacheSimulator, simulateAll } from './simulator.js';
export type { CacheEntry, SimulatorOptions } from './simulator.js';
export { contentBlocks, withoutMarker } from '../internal/blocks.js';
export { buildPrefix, BlockMemo, canonicalBlock, isMarkable, MAX_CACHE_POINTS, REJECTION } from './prefix.js';
export type { PrefixMarker, Prefix, PrefixBlock, PrefixPosition } from './prefix.js';
export { BASELINES, baselineById, placeMarkers, stripCacheControl } from './strategies.js';
export type { Baseline, BaselineId } from './strategies.js';
export { openAIBaselines } from './openai-strategies.js';
export { fromBedrockConverse, fromOpenAIChat, fromOpenAIResponses } from './from-provider.js';
export { idealBound } from './ideal.js';
export type { IdealRequest, IdealRun } from './ideal.js';
export { compareStrategies, totalsOf } from './summary.js';
export type { Comparison, ExtraRun, RunTotals, StrategySummary } from './summary.js';
export { formatExplain, formatRequestTable, formatTotals, simulationJson } from './format.js';
export type {
  MarkerReport,
  CacheTtl,
  CountTokens,
  MissCause,
  PrefixChange,
  RequestExplain,
  SimAccepted,
  SimCost,
  SimParams,
  SimRejected,
  SimRejection,
  SimRequest,
  SimResult,
  SimUsage,
  Tier,
} from './types.js';

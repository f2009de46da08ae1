/**
 * `cachepoint/node`: what needs Node's file system. The core entry
 * (`cachepoint`) imports no Node built-ins, so it runs on edge runtimes
 * (Cloudflare Workers, Vercel Edge, Deno, browsers); files live here.
 */
export { readTrace } from './trace/reader.js';
export { FilePayloadStore, fileNameOf } from './recall/file.js';
export type { FilePayloadStoreOptions, FileStoreProblem } from './recall/file.js';
export { conversationFileName, FileConversationStore } from './conversation/file-store.js';
export type { FileConversationStoreOptions } from './conversation/file-store.js';

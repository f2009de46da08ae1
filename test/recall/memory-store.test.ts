import { MemoryPayloadStore } from '../../src/recall/memory.js';
import { describePayloadStore } from './store-contract.js';

describePayloadStore('MemoryPayloadStore', () => new MemoryPayloadStore());

import { MemoryPayloadStore } from '../../src/store/memory.js';
import { describePayloadStore } from './store-contract.js';

describePayloadStore('MemoryPayloadStore', () => new MemoryPayloadStore());

export * from './resources.js';
export * from './verdicts.js';
export * from './payloads.js';

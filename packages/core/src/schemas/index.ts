export * from './resources.js';
export * from './responses.js';

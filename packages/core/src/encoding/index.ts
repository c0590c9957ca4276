export * from './bytes.js';
export * from './jcs.js';
export * from './hash.js';

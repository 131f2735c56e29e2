export * from './primitives.ts';
export * from './hardware.ts';
export * from './database.ts';
export * from './run.ts';
export * from './api.ts';
export * from './canonical.ts';
export * from './scenario.ts';
export * from './comparisons.ts';

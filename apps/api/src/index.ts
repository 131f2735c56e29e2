export { buildApp, type App, type BuildAppOptions } from './app.ts';
export { loadEnv, ApiEnv } from './config.ts';

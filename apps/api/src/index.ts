export { buildApp, type App, type BuildAppOptions } from './app.ts';
export { loadEnv, type ApiEnv } from './config.ts';

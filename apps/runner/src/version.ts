import { readFileSync } from 'node:fs';

/** The runner's semantic version, sent as User-Agent and in every submission. */
export const RUNNER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

#!/usr/bin/env node
// The only way the `tunelab` CLI starts. Loads the TypeScript entry point in this same process
// through tsx's ESM hooks (internal packages are consumed as TS source), so signals such as
// Ctrl-C reach the CLI directly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
// A connection that a dead or stalled server never closed must not keep the process alive.
setTimeout(() => process.exit(), 1_000).unref();

#!/usr/bin/env node
// Loads the TypeScript entry point in this same process through tsx's ESM hooks (internal
// packages are consumed as TS source), so signals such as Ctrl-C reach the CLI directly.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');

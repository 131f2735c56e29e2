#!/usr/bin/env node
// Runs the TypeScript entry point through tsx (internal packages are consumed as TS source).
// Ctrl-C reaches the child through the terminal's process group; the child cleans up and exits,
// so this wrapper only ignores SIGINT itself, forwards SIGTERM and mirrors the exit code.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsxCli = require.resolve('tsx/cli');
const entry = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const child = spawn(process.execPath, [tsxCli, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));

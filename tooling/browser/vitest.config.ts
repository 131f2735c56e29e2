import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

// Unpacking @sparticuz/chromium on first use and starting a browser take a while.
export default mergeConfig(baseConfig, defineConfig({ test: { testTimeout: 120_000 } }));

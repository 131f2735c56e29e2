import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

export default mergeConfig(baseConfig, defineConfig({ test: { include: ['*.test.ts'], testTimeout: 120_000 } }));

import { baseConfig } from '@tunelab/vitest-config';
import { defineConfig, mergeConfig } from 'vitest/config';

export default mergeConfig(baseConfig, defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } }));
